#!/usr/bin/env bash
# Interop: the official TypeScript MCP SDK v1 client (npm @modelcontextprotocol/sdk) drives
# examples/conformance_server.rs over both HTTP transports: the 2024-11-05 HTTP+SSE transport
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

SDK_VERSION=1.32.2       # npm @modelcontextprotocol/sdk (v1 line; LATEST_PROTOCOL_VERSION 2025-11-25)
DIR="${INTEROP_TS_DIR:-target/interop-ts}"
case "$DIR" in /*) ;; *) DIR="$PWD/$DIR" ;; esac
export INTEROP_TS_DIR="$DIR"

echo "== typescript interop: @modelcontextprotocol/sdk@$SDK_VERSION in $DIR (node $(node --version))"
installed="$(node -p "try{require('$DIR/node_modules/@modelcontextprotocol/sdk/package.json').version}catch{''}" 2>/dev/null || true)"
if [ "$installed" != "$SDK_VERSION" ]; then
    mkdir -p "$DIR"
    echo '{"name":"interop-ts","private":true}' >"$DIR/package.json"
    timeout 600 npm install --prefix "$DIR" --no-audit --no-fund --silent \
        "@modelcontextprotocol/sdk@$SDK_VERSION" >&2
fi

echo "== cargo build --example conformance_server"
timeout 900 cargo build --example conformance_server

PORT="${INTEROP_PORT:-$(timeout 10 node -e \
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
LOG="$INTEROP_TS_DIR/server.log"
$BIN/conformance_server --port "$PORT" >"$LOG" 2>&1 &
SERVER=$!
stop_server() {
    kill -TERM "$SERVER" 2>/dev/null || return 0
    for _ in $(seq 1 50); do
        kill -0 "$SERVER" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
}
trap stop_server EXIT
up=0
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then up=1; break; fi
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
done
if [ "$up" -ne 1 ]; then
    echo "FAIL: conformance_server did not listen on 127.0.0.1:$PORT"; cat "$LOG"
    echo "0 passed, 1 failed"
    exit 1
fi

echo "== node test_http.mjs <-> conformance_server on http://127.0.0.1:$PORT (/sse, /messages, /mcp)"
rc=0
timeout 180 node interop/typescript/test_http.mjs "http://127.0.0.1:$PORT" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "--- server log $LOG:"; tail -50 "$LOG"
fi
exit "$rc"
