#!/usr/bin/env bash
# Interop: the official Python MCP SDK client drives the bookshop example over stdio,
# through the legacy initialize handshake (2025-11-25) and the modern era (2026-07-28,
# server/discover). Needs only python3 (>= 3.10), pip (PyPI) and cargo.
#
# Env: PYTHON (interpreter, default python3.11 if present else python3),
#      INTEROP_VENV (default target/interop-venv), INTEROP_VERBOSE=1 prints every wire log.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."

MCP_VERSION=2.3.0        # PyPI `mcp`; pulls mcp-types==2.3.0
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${INTEROP_VENV:-target/interop-venv}"
STAMP="$VENV/.mcp-$MCP_VERSION"

echo "== python interop: venv $VENV ($("$PYTHON" --version 2>&1), mcp==$MCP_VERSION)"
if [ ! -f "$STAMP" ]; then
    rm -rf "$VENV"
    timeout 120 "$PYTHON" -m venv "$VENV"
    timeout 600 "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
        --quiet --timeout 60 --retries 3 "mcp==$MCP_VERSION"
    touch "$STAMP"
fi
"$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"), "mcp-types", m.version("mcp-types"))'

echo "== cargo build --example bookshop"
timeout 900 cargo build --example bookshop

echo "== python client <-> $BIN/bookshop --stdio"
timeout 180 "$VENV/bin/python" interop/python/test_bookshop.py $BIN/bookshop
