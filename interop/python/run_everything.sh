#!/usr/bin/env bash
# Interop: the official Python MCP SDK client exercises examples/everything.rs over stdio,
# Streamable HTTP (/mcp) and HTTP+SSE (/sse) at every revision it speaks: 2024-11-05,
# 2025-03-26, 2025-06-18 and 2025-11-25 (legacy; the server offers only that revision, so the
# client negotiates down to it; over stdio also in auto mode: probe, then fall back) and
# 2026-07-28 (stdio and Streamable HTTP). One `everything --http` process per revision,
# started and stopped here. See test_everything.py for what is checked. Needs python3
# (>= 3.10), pip, cargo.
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
. interop/python/venv.sh

REVISIONS="${INTEROP_REVISIONS:-2024-11-05 2025-03-26 2025-06-18 2025-11-25 2026-07-28}"

python_venv "python everything interop"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build --example everything --all-features"
timeout 900 cargo build --example everything --all-features

read -ra REVS <<<"$REVISIONS"
interop_start_per_revision "$VENV" "$BIN/everything" "${REVS[@]}"

export INTEROP_STDIO_LOG="$VENV/everything-stdio.log"
: >"$INTEROP_STDIO_LOG"
echo "== python client <-> everything (stdio, /mcp, /sse) at: $REVISIONS"
rc=0
timeout 600 "$VENV/bin/python" interop/python/test_everything.py "$BIN/everything" "${INTEROP_SERVERS[@]}" || rc=$?
if [ "$rc" -ne 0 ]; then
    for log in "${INTEROP_LOGS[@]}" "$INTEROP_STDIO_LOG"; do interop_tail_log "$log"; done
fi
exit "$rc"
