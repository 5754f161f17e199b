#!/usr/bin/env bash
# Interop: the official Python MCP SDK client drives examples/gateway.rs over stdio, in both
# eras, with examples/everything.rs and the gateway's own demo upstream behind it (each a
# child process over stdio). See test_gateway.py for what is checked. Needs python3
# (>= 3.10), pip (PyPI) and cargo.
#
# Env: PYTHON, INTEROP_VENV (default target/interop-venv), as interop/python/run.sh.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/python/venv.sh

python_venv "gateway interop"

# The examples need opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build --example gateway --example everything --all-features"
timeout 900 cargo build --example gateway --example everything --all-features

echo "== python client <-> $BIN/gateway --stdio (upstreams: everything, the demo notes)"
timeout 300 "$VENV/bin/python" interop/gateway/test_gateway.py "$BIN/gateway" "$BIN/everything"
