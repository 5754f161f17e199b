#!/usr/bin/env bash
# Interop: the official Python MCP SDK client drives tests/examples/conformance_server.rs over
# Streamable HTTP (/mcp) in both eras: the legacy initialize handshake (2025-11-25, sessions)
# and the modern era (2026-07-28, server/discover, stateless). See test_http.py for what is
# checked. Needs only python3 (>= 3.10), pip (PyPI) and cargo.
#
# Env: PYTHON (interpreter, default python3.11 if present else python3),
#      INTEROP_VENV (default target/interop-venv, shared with run.sh),
#      INTEROP_PORT (default: a free port), INTEROP_VERBOSE=1 prints every wire log.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/python/venv.sh

python_venv "python http interop"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build -p mcp-framework-tests --example conformance_server --all-features"
timeout 900 cargo build -p mcp-framework-tests --example conformance_server --all-features

PORT="${INTEROP_PORT:-$(interop_free_port)}"
LOG="$VENV/conformance_server.log"
interop_start_listening conformance_server "$LOG" "$PORT" $BIN/conformance_server --port "$PORT"

echo "== python client <-> conformance_server on http://127.0.0.1:$PORT/mcp"
rc=0
timeout 180 "$VENV/bin/python" interop/python/test_http.py "http://127.0.0.1:$PORT/mcp" || rc=$?
[ "$rc" -eq 0 ] || interop_tail_log "$LOG"
exit "$rc"
