#!/usr/bin/env bash
# Interop: MCP Apps on examples/apps.rs (see test_apps.mjs): the MCP Inspector CLI shows the
# tools' UI resource URI, the view's CSP and permissions and reads its HTML with the app
# MIME type (stdio and Streamable HTTP, both eras); the official TypeScript client v2 with
# `@modelcontextprotocol/ext-apps` declares the extension and sees the tool's UI metadata,
# checked with ext-apps' own helpers and schemas.
#
# The Inspector and Node 22 are installed as interop/inspector/run.sh installs them
# (`interop_inspector_install`, into the same default directory, target/interop-inspector); the TypeScript packages into
# target/interop-apps. Never into the repo. Exits non-zero when any check fails.
#
# Env: INTEROP_INSPECTOR_DIR (default target/interop-inspector), INTEROP_APPS_DIR (default
#      target/interop-apps), INTEROP_PORT (default: a free port), INTEROP_VERBOSE=1.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/inspector/versions.sh
. interop/typescript/versions.sh
EXT_APPS_VERSION=2.0.4 # npm @modelcontextprotocol/ext-apps (peer: @modelcontextprotocol/client ^2)

INSPECTOR_DIR="$(interop_abs "${INTEROP_INSPECTOR_DIR:-target/interop-inspector}")"
DIR="$(interop_abs "${INTEROP_APPS_DIR:-target/interop-apps}")"

echo "== apps interop: inspector@$INSPECTOR_VERSION, @modelcontextprotocol/client@$V2_VERSION + ext-apps@$EXT_APPS_VERSION"
interop_inspector_install "$INSPECTOR_DIR"
interop_npm_install "$DIR" @modelcontextprotocol/client "$V2_VERSION"
interop_npm_install "$DIR" @modelcontextprotocol/ext-apps "$EXT_APPS_VERSION"

echo "== cargo build --example apps --all-features"
timeout 900 cargo build --example apps --all-features

PORT="${INTEROP_PORT:-$(interop_free_port)}"
LOG="$DIR/apps-http.log"
interop_start_listening "apps --http" "$LOG" "$PORT" "$BIN/apps" --http "127.0.0.1:$PORT"

echo "== node $($NODE22 --version) test_apps.mjs <-> apps (stdio, http://127.0.0.1:$PORT/mcp)"
rc=0
HOME="$INSPECTOR_DIR/home" timeout 300 "$NODE22" interop/apps/test_apps.mjs \
    "$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector" "$DIR/node_modules" \
    "$(interop_abs "$BIN/apps")" "http://127.0.0.1:$PORT/mcp" || rc=$?
[ "$rc" -eq 0 ] || interop_tail_log "$LOG"
exit "$rc"
