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
. interop/lib.sh
. interop/python/venv.sh

python_venv "python interop"

echo "== cargo build --example bookshop"
timeout 900 cargo build --example bookshop

echo "== python client <-> $BIN/bookshop --stdio"
timeout 180 "$VENV/bin/python" interop/python/test_bookshop.py $BIN/bookshop
