#!/usr/bin/env bash
# Interop: the official TypeScript MCP SDK v1 client (npm @modelcontextprotocol/sdk) drives
# tests/examples/conformance_server.rs over both HTTP transports: the 2024-11-05 HTTP+SSE transport
# (SSEClientTransport, GET /sse + POST /messages) and Streamable HTTP at 2025-11-25
# (StreamableHTTPClientTransport, /mcp). See test_http.mjs for what is checked.
#
# The SDK is installed into target/interop-ts (never the repo). Needs node >= 18, npm, cargo.
# Exits non-zero when any test fails.
#
# Env: INTEROP_TS_DIR (default target/interop-ts), INTEROP_PORT (default: a free port),
#      INTEROP_VERBOSE=1 prints every wire log.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/typescript/versions.sh

DIR="$(interop_abs "${INTEROP_TS_DIR:-target/interop-ts}")"
export INTEROP_TS_DIR="$DIR"

echo "== typescript interop: @modelcontextprotocol/sdk@$V1_VERSION in $DIR (node $(node --version))"
interop_npm_install "$DIR" @modelcontextprotocol/sdk "$V1_VERSION"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build -p mcp-framework-tests --example conformance_server --all-features"
timeout 900 cargo build -p mcp-framework-tests --example conformance_server --all-features

PORT="${INTEROP_PORT:-$(interop_free_port)}"
LOG="$INTEROP_TS_DIR/server.log"
interop_start_listening conformance_server "$LOG" "$PORT" $BIN/conformance_server --port "$PORT"

echo "== node test_http.mjs <-> conformance_server on http://127.0.0.1:$PORT (/sse, /messages, /mcp)"
rc=0
timeout 180 node interop/typescript/test_http.mjs "http://127.0.0.1:$PORT" || rc=$?
[ "$rc" -eq 0 ] || interop_tail_log "$LOG"
exit "$rc"
