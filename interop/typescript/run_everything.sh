#!/usr/bin/env bash
# Interop: the official TypeScript clients exercise examples/everything.rs: SDK v1
# (@modelcontextprotocol/sdk) at 2025-11-25 over stdio, Streamable HTTP and HTTP+SSE, and the
# v2 client (@modelcontextprotocol/client) at 2026-07-28 over stdio and Streamable HTTP.
# See test_everything.mjs for what is checked. Packages go into target/ (never the repo).
#
# Env: INTEROP_TS_DIR (default target/interop-ts), INTEROP_TS2_DIR (default target/interop-ts2),
#      INTEROP_PORT (default: a free port).
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."

V1_VERSION=1.32.2        # npm @modelcontextprotocol/sdk (keep in step with run.sh)
V2_VERSION=2.4.0         # npm @modelcontextprotocol/client (2026-07-28)
abs() { case "$1" in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
export INTEROP_TS_DIR="$(abs "${INTEROP_TS_DIR:-target/interop-ts}")"
export INTEROP_TS2_DIR="$(abs "${INTEROP_TS2_DIR:-target/interop-ts2}")"

install() { # dir package version
    local have
    have="$(node -p "try{require('$1/node_modules/$2/package.json').version}catch{''}" 2>/dev/null || true)"
    if [ "$have" != "$3" ]; then
        mkdir -p "$1"
        echo '{"name":"interop","private":true}' >"$1/package.json"
        timeout 600 npm install --prefix "$1" --no-audit --no-fund --silent "$2@$3" >&2
    fi
}
echo "== typescript everything interop: sdk@$V1_VERSION, client@$V2_VERSION (node $(node --version))"
install "$INTEROP_TS_DIR" @modelcontextprotocol/sdk "$V1_VERSION"
install "$INTEROP_TS2_DIR" @modelcontextprotocol/client "$V2_VERSION"

echo "== cargo build --example everything"
timeout 900 cargo build --example everything

PORT="${INTEROP_PORT:-$(timeout 10 node -e \
    "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")}"
LOG="$INTEROP_TS2_DIR/everything.log"
$BIN/everything --http "127.0.0.1:$PORT" >"$LOG" 2>&1 &
SERVER=$!
trap 'kill "$SERVER" 2>/dev/null || true; wait "$SERVER" 2>/dev/null || true' EXIT
up=0
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then up=1; break; fi
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
done
if [ "$up" -ne 1 ]; then
    echo "FAIL: everything did not listen on 127.0.0.1:$PORT"; cat "$LOG"; exit 1
fi

echo "== node test_everything.mjs <-> everything (stdio, http://127.0.0.1:$PORT/mcp, /sse)"
rc=0
timeout 400 node interop/typescript/test_everything.mjs "$BIN/everything" "http://127.0.0.1:$PORT" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "--- server log $LOG:"; tail -50 "$LOG"
fi
exit "$rc"
