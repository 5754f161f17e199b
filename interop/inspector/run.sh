#!/usr/bin/env bash
# Interop: the MCP Inspector CLI (npm @modelcontextprotocol/inspector, `--cli`) drives
# examples/everything.rs over stdio and Streamable HTTP (/mcp): tools/list with the CLI's
# `--strict` schema-portability check (every tool's inputSchema and outputSchema must come
# back with no finding at all), tools/call, resources/list, resources/read, prompts/list and
# prompts/get, each in the CLI's JSON output asserted on. See test_inspector.mjs.
#
# The Inspector and Node 22 go into target/interop-inspector (`interop_inspector_install`,
# interop/inspector/versions.sh). Exits non-zero when any check fails.
#
# Env: INTEROP_INSPECTOR_DIR (default target/interop-inspector),
#      INTEROP_PORT (default: a free port), INTEROP_VERBOSE=1 prints every CLI call.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/inspector/versions.sh

DIR="$(interop_abs "${INTEROP_INSPECTOR_DIR:-target/interop-inspector}")"
echo "== inspector interop"
interop_inspector_install "$DIR"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build --example everything --all-features"
timeout 900 cargo build --example everything --all-features

PORT="${INTEROP_PORT:-$(interop_free_port)}"
LOG="$DIR/everything-http.log"
interop_start_listening "everything --http" "$LOG" "$PORT" "$BIN/everything" --http "127.0.0.1:$PORT"

echo "== node $($NODE22 --version) test_inspector.mjs: inspector --cli <-> everything (stdio, http://127.0.0.1:$PORT/mcp)"
# The CLI's state (catalog, OAuth store) defaults to ~/.mcp-inspector: keep it under $DIR.
rc=0
HOME="$DIR/home" timeout 300 "$NODE22" interop/inspector/test_inspector.mjs \
    "$DIR/node_modules/@modelcontextprotocol/inspector" "$BIN/everything" \
    "http://127.0.0.1:$PORT/mcp" || rc=$?
[ "$rc" -eq 0 ] || interop_tail_log "$LOG"
exit "$rc"
