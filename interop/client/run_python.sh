#!/usr/bin/env bash
# Interop: our client (tests/examples/client_interop.rs, profile `python`) against a server written
# with the official Python MCP SDK (interop/client/python_server.py, PyPI `mcp` pinned below),
# over stdio and Streamable HTTP, at 2025-11-25 (`initialize`) and 2026-07-28
# (`server/discover`, pinned and through auto negotiation), the response cache included
# (against the server's 2026 caching hints). Each run prints one line per
# check; the script fails when any run does. Needs python3 (>= 3.10), pip, cargo.
#
# Env: PYTHON (interpreter, default python3.11 if present else python3),
#      INTEROP_VENV (default target/interop-venv, shared with interop/python/*.sh),
#      INTEROP_PORT (default: a free port), INTEROP_VERBOSE=1 names what is started.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh

MCP_VERSION=2.3.0 # PyPI `mcp` (keep in step with interop/python)
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="$(interop_abs "${INTEROP_VENV:-target/interop-venv}")"

echo "== client interop (python): venv $VENV ($("$PYTHON" --version 2>&1), mcp==$MCP_VERSION)"
interop_venv "$VENV" "$PYTHON" "mcp==$MCP_VERSION"
"$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"))'

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build -p mcp-framework-tests --example client_interop --all-features"
timeout 900 cargo build -p mcp-framework-tests --example client_interop --all-features

SERVER="$VENV/bin/python interop/client/python_server.py"
PORT="${INTEROP_PORT:-$(interop_free_port)}"
LOG="$VENV/client-interop-python-http.log"
# The SDK takes seconds to import on a busy machine: up to 60 s to listen.
interop_start "python_server.py http" "$LOG" timeout 900 $SERVER http "$PORT"
if ! interop_wait_port "$PORT" "$INTEROP_PID" 600; then
    echo "FAIL: python_server.py did not listen on 127.0.0.1:$PORT"
    interop_tail_log "$LOG"
    exit 1
fi

runs=0
failed=()
drive() { # label args...
    local label="$1"
    shift
    echo "== our client -> python server: $label"
    runs=$((runs + 1))
    timeout 180 "$BIN/client_interop" --profile python "$@" 2>>"$VENV/client-interop-python-stderr.log" \
        || failed+=("$label")
}

for mode in legacy modern auto; do
    drive "stdio, --mode $mode" --stdio "$SERVER stdio" --mode "$mode"
done
for mode in legacy modern auto; do
    drive "Streamable HTTP, --mode $mode" --http "http://127.0.0.1:$PORT/mcp" --mode "$mode"
done

echo "== client interop (python): $((runs - ${#failed[@]})) of $runs runs passed"
if [ "${#failed[@]}" -ne 0 ]; then
    printf 'FAILED: %s\n' "${failed[@]}"
    interop_tail_log "$LOG"
    exit 1
fi
