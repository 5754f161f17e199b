#!/usr/bin/env bash
# Interop: the official Python MCP SDK client exercises examples/everything.rs over stdio,
# Streamable HTTP (/mcp) and HTTP+SSE (/sse) at every revision it speaks: 2024-11-05,
# 2025-03-26, 2025-06-18 and 2025-11-25 (legacy; the server offers only that revision, so the
# client negotiates down to it) and 2026-07-28 (stdio and Streamable HTTP). One `everything
# --http` process per revision, started and stopped here. See test_everything.py for what
# is checked. Needs python3 (>= 3.10), pip, cargo.
#
# Env: PYTHON (interpreter, default python3.11 if present else python3),
#      INTEROP_VENV (default target/interop-venv, shared with run.sh),
#      INTEROP_REVISIONS (default: all five, space-separated),
#      INTEROP_PORT (default: free ports; else the first of consecutive ports, one per revision),
#      INTEROP_VERBOSE=1 prints every wire log.
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh

MCP_VERSION=2.3.0        # PyPI `mcp`; pulls mcp-types==2.3.0 (keep in step with run.sh)
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${INTEROP_VENV:-target/interop-venv}"
REVISIONS="${INTEROP_REVISIONS:-2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28}"

echo "== python everything interop: venv $VENV ($("$PYTHON" --version 2>&1), mcp==$MCP_VERSION)"
interop_venv "$VENV" "$PYTHON" "mcp==$MCP_VERSION"
"$VENV/bin/python" -c 'import importlib.metadata as m; print("mcp", m.version("mcp"), "mcp-types", m.version("mcp-types"), "httpx2", m.version("httpx2"))'

echo "== cargo build --example everything"
timeout 900 cargo build --example everything

SERVERS=()
LOGS=()
n=0
for rev in $REVISIONS; do
    if [ -n "${INTEROP_PORT:-}" ]; then port=$((INTEROP_PORT + n)); else port="$(interop_free_port)"; fi
    log="$VENV/everything-$rev.log"
    interop_start_listening "everything ($rev)" "$log" "$port" \
        "$BIN/everything" --http "127.0.0.1:$port" --protocol-versions "$rev"
    SERVERS+=("$rev=http://127.0.0.1:$port")
    LOGS+=("$log")
    n=$((n + 1))
done

echo "== python client <-> everything (stdio, /mcp, /sse) at: $REVISIONS"
rc=0
timeout 600 "$VENV/bin/python" interop/python/test_everything.py "$BIN/everything" "${SERVERS[@]}" || rc=$?
if [ "$rc" -ne 0 ]; then
    for log in "${LOGS[@]}"; do interop_tail_log "$log"; done
fi
exit "$rc"
