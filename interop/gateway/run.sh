#!/usr/bin/env bash
# Interop: the official Python MCP SDK client, the TypeScript SDK clients (v1 at 2025-11-25,
# v2 at 2026-07-28) and the MCP Inspector CLI (both eras) drive examples/gateway.rs over
# stdio, with examples/everything.rs (and for the SDK clients the gateway's own demo
# upstream) behind it, each a child process over stdio. See test_gateway.py,
# test_gateway.mjs and test_inspector.mjs for what is checked. Needs python3 (>= 3.10), pip
# (PyPI), node >= 18, npm and cargo; Node 22 for the Inspector comes from npm
# (`interop_inspector_install`, interop/inspector/versions.sh). Then the Inspector CLI
# lists and calls FastAPI-backed tools through `mcp gateway --config FILE` (an `openapi`
# upstream; test_inspector_openapi.mjs), FastAPI and uvicorn in the same venv.
#
# Env: PYTHON, INTEROP_VENV (default target/interop-venv), INTEROP_TS_DIR (default
#      target/interop-ts), INTEROP_TS2_DIR (default target/interop-ts2),
#      INTEROP_INSPECTOR_DIR (default target/interop-inspector), as the other scripts.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/python/venv.sh
. interop/typescript/versions.sh
. interop/inspector/versions.sh

python_venv "gateway interop"
python_fastapi
export INTEROP_TS_DIR="$(interop_abs "${INTEROP_TS_DIR:-target/interop-ts}")"
export INTEROP_TS2_DIR="$(interop_abs "${INTEROP_TS2_DIR:-target/interop-ts2}")"
echo "== gateway interop: sdk@$V1_VERSION, client@$V2_VERSION (node $(node --version))"
interop_npm_install "$INTEROP_TS_DIR" @modelcontextprotocol/sdk "$V1_VERSION"
interop_npm_install "$INTEROP_TS2_DIR" @modelcontextprotocol/client "$V2_VERSION"

# The examples need opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build --example gateway --example everything --all-features"
timeout 900 cargo build --example gateway --example everything --all-features
echo "== cargo build -p mcp-framework-cli (mcp gateway)"
timeout 900 cargo build -p mcp-framework-cli

echo "== python client <-> $BIN/gateway --stdio (upstreams: everything, the demo notes)"
timeout 300 "$VENV/bin/python" interop/gateway/test_gateway.py "$BIN/gateway" "$BIN/everything"

echo "== node test_gateway.mjs <-> $BIN/gateway --stdio (upstreams: everything, the demo notes)"
timeout 300 node interop/gateway/test_gateway.mjs "$BIN/gateway" "$BIN/everything"

INSPECTOR_DIR="$(interop_abs "${INTEROP_INSPECTOR_DIR:-target/interop-inspector}")"
interop_inspector_install "$INSPECTOR_DIR"
echo "== node $($NODE22 --version) test_inspector.mjs: inspector --cli <-> $BIN/gateway --stdio (upstream: everything)"
HOME="$INSPECTOR_DIR/home" timeout 300 "$NODE22" interop/gateway/test_inspector.mjs \
    "$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector" "$BIN/gateway" "$BIN/everything"

echo "== node $($NODE22 --version) test_inspector_openapi.mjs: inspector --cli <-> mcp gateway --config (upstream: a FastAPI app as openapi)"
HOME="$INSPECTOR_DIR/home" timeout 300 "$NODE22" interop/gateway/test_inspector_openapi.mjs \
    "$INSPECTOR_DIR/node_modules/@modelcontextprotocol/inspector" "${CARGO_TARGET_DIR:-target}/debug/mcp" "$VENV/bin/python"
