#!/usr/bin/env bash
# Interop: our client (tests/examples/client_interop.rs, profile `everything`) against the
# TypeScript reference server `@modelcontextprotocol/server-everything` (npm, pinned below;
# it runs on the TypeScript SDK v1, legacy revisions only) over stdio, Streamable HTTP and
# HTTP+SSE (2024-11-05 transport), at several revisions and through auto negotiation (the
# `server/discover` probe fails, the client falls back to `initialize`). Each run prints one
# line per check; the script fails when any run does. Needs node (>= 20), npm, cargo.
#
# Env: INTEROP_NPM_DIR (default target/interop-everything: where the package is installed),
#      INTEROP_PORT (default: free ports; else two consecutive ports, HTTP then SSE),
#      INTEROP_VERBOSE=1 names what is started.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh

EVERYTHING_VERSION=2026.8.31 # npm @modelcontextprotocol/server-everything
DIR="$(interop_abs "${INTEROP_NPM_DIR:-target/interop-everything}")"

echo "== client interop (server-everything): node $(node --version), server-everything@$EVERYTHING_VERSION in $DIR"
interop_npm_install "$DIR" @modelcontextprotocol/server-everything "$EVERYTHING_VERSION"
ENTRY="$DIR/node_modules/@modelcontextprotocol/server-everything/dist/index.js"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build -p mcp-framework-tests --example client_interop --all-features"
timeout 900 cargo build -p mcp-framework-tests --example client_interop --all-features

if [ -n "${INTEROP_PORT:-}" ]; then
    HTTP_PORT="$INTEROP_PORT" SSE_PORT=$((INTEROP_PORT + 1))
else
    HTTP_PORT="$(interop_free_port)" SSE_PORT="$(interop_free_port)"
fi
HTTP_LOG="$DIR/streamable-http.log" SSE_LOG="$DIR/sse.log"
interop_start_listening "server-everything streamableHttp" "$HTTP_LOG" "$HTTP_PORT" \
    env PORT="$HTTP_PORT" timeout 900 node "$ENTRY" streamableHttp || exit 1
interop_start_listening "server-everything sse" "$SSE_LOG" "$SSE_PORT" \
    env PORT="$SSE_PORT" timeout 900 node "$ENTRY" sse || exit 1

runs=0
failed=()
drive() { # label args...
    local label="$1"
    shift
    echo "== our client -> server-everything: $label"
    runs=$((runs + 1))
    timeout 180 "$BIN/client_interop" --profile everything "$@" 2>>"$DIR/client-stderr.log" \
        || failed+=("$label")
}

for mode in auto legacy:2025-06-18 legacy:2024-11-05; do
    drive "stdio, --mode $mode" --stdio "node $ENTRY stdio" --mode "$mode"
done
for mode in auto legacy:2025-11-25 legacy:2025-03-26; do
    drive "Streamable HTTP, --mode $mode" --http "http://127.0.0.1:$HTTP_PORT/mcp" --mode "$mode"
done
for mode in legacy:2024-11-05 legacy:2025-11-25; do
    drive "HTTP+SSE, --mode $mode" --sse "http://127.0.0.1:$SSE_PORT/sse" --mode "$mode"
done

echo "== client interop (server-everything): $((runs - ${#failed[@]})) of $runs runs passed"
if [ "${#failed[@]}" -ne 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    interop_tail_log "$HTTP_LOG"
    interop_tail_log "$SSE_LOG"
    exit 1
fi
