#!/usr/bin/env bash
# Interop: the official Python MCP SDK client exercises examples/everything.rs over stdio,
# Streamable HTTP (/mcp) and HTTP+SSE (/sse), at 2025-11-25 and 2026-07-28 (2025-11-25 only
# over SSE). See test_everything.py for what is checked. Needs python3 (>= 3.10), pip, cargo.
#
# Env: PYTHON (interpreter, default python3.11 if present else python3),
#      INTEROP_VENV (default target/interop-venv, shared with run.sh),
#      INTEROP_PORT (default: a free port), INTEROP_VERBOSE=1 prints every wire log.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."

MCP_VERSION=2.3.0        # PyPI `mcp`; pulls mcp-types==2.3.0 (keep in step with run.sh)
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${INTEROP_VENV:-target/interop-venv}"
STAMP="$VENV/.mcp-$MCP_VERSION"

echo "== python everything interop: venv $VENV ($("$PYTHON" --version 2>&1), mcp==$MCP_VERSION)"
if [ ! -f "$STAMP" ]; then
    rm -rf "$VENV"
    timeout 120 "$PYTHON" -m venv "$VENV"
    timeout 600 "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
        --quiet --timeout 60 --retries 3 "mcp==$MCP_VERSION"
    touch "$STAMP"
fi
"$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"), "mcp-types", m.version("mcp-types"), "httpx2", m.version("httpx2"))'

echo "== cargo build --example everything"
timeout 900 cargo build --example everything

PORT="${INTEROP_PORT:-$(timeout 10 "$VENV/bin/python" -c \
    'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()')}"
LOG="$VENV/everything.log"
$BIN/everything --http "127.0.0.1:$PORT" >"$LOG" 2>&1 &
SERVER=$!
stop_server() {
    kill -TERM "$SERVER" 2>/dev/null || return 0
    for _ in $(seq 1 50); do
        kill -0 "$SERVER" 2>/dev/null || break
        sleep 0.1
    done
    kill -KILL "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
}
trap stop_server EXIT
up=0
for _ in $(seq 1 100); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null; then up=1; break; fi
    kill -0 "$SERVER" 2>/dev/null || break
    sleep 0.1
done
if [ "$up" -ne 1 ]; then
    echo "FAIL: everything did not listen on 127.0.0.1:$PORT"; cat "$LOG"
    echo "0 passed, 1 failed"
    exit 1
fi

echo "== python client <-> everything (stdio, http://127.0.0.1:$PORT/mcp, /sse)"
rc=0
timeout 400 "$VENV/bin/python" interop/python/test_everything.py "$BIN/everything" \
    "http://127.0.0.1:$PORT/mcp" "http://127.0.0.1:$PORT/sse" || rc=$?
if [ "$rc" -ne 0 ]; then
    echo "--- server log $LOG:"; tail -50 "$LOG"
fi
exit "$rc"
