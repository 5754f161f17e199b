# The pinned official TypeScript packages, for the TypeScript interop scripts (sourced).
V1_VERSION=1.32.2        # npm @modelcontextprotocol/sdk (v1 line; LATEST_PROTOCOL_VERSION 2025-11-25)
V2_VERSION=2.4.0         # npm @modelcontextprotocol/client (v2; 2026-07-28 and the legacy revisions)
