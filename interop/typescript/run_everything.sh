#!/usr/bin/env bash
# Interop: the official TypeScript clients exercise examples/everything.rs at every revision
# they speak: SDK v1 (@modelcontextprotocol/sdk) and the v2 client (@modelcontextprotocol/client,
# legacy mode) at 2024-11-05, 2025-03-26, 2025-06-18 and 2025-11-25 over stdio, Streamable
# HTTP and HTTP+SSE (the server offers only that revision, so the clients negotiate down to
# it), v2 in auto mode (probe, then fall back) at the same revisions over stdio and Streamable
# HTTP, and v2 at 2026-07-28 over stdio and Streamable HTTP. One `everything --http` process
# per revision, started and stopped here. See test_everything.mjs for what is checked.
# Packages go into target/ (never the repo).
#
# Env: INTEROP_TS_DIR (default target/interop-ts), INTEROP_TS2_DIR (default target/interop-ts2),
#      INTEROP_REVISIONS (default: all five, space-separated),
#      INTEROP_PORT (default: free ports; else the first of consecutive ports, one per revision).
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/typescript/versions.sh

REVISIONS="${INTEROP_REVISIONS:-2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28}"
export INTEROP_TS_DIR="$(interop_abs "${INTEROP_TS_DIR:-target/interop-ts}")"
export INTEROP_TS2_DIR="$(interop_abs "${INTEROP_TS2_DIR:-target/interop-ts2}")"

echo "== typescript everything interop: sdk@$V1_VERSION, client@$V2_VERSION (node $(node --version))"
interop_npm_install "$INTEROP_TS_DIR" @modelcontextprotocol/sdk "$V1_VERSION"
interop_npm_install "$INTEROP_TS2_DIR" @modelcontextprotocol/client "$V2_VERSION"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build --example everything --all-features"
timeout 900 cargo build --example everything --all-features

read -ra REVS <<<"$REVISIONS"
interop_start_per_revision "$INTEROP_TS2_DIR" "$BIN/everything" "${REVS[@]}"

echo "== node test_everything.mjs <-> everything (stdio, /mcp, /sse) at: $REVISIONS"
rc=0
timeout 600 node interop/typescript/test_everything.mjs "$BIN/everything" "${INTEROP_SERVERS[@]}" || rc=$?
if [ "$rc" -ne 0 ]; then
    for log in "${INTEROP_LOGS[@]}"; do interop_tail_log "$log"; done
fi
exit "$rc"
