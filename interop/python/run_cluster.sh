#!/usr/bin/env bash
# Interop behind a load balancer: the official Python MCP SDK client runs the whole exercise
# of test_everything.py (tools, resources, prompts, completion, progress, cancellation,
# logging, elicitation, sampling) over Streamable HTTP through nginx against the three
# `everything` replicas of deploy/cluster.sh (Redis shared, round-robin, no stickiness), at
# 2025-11-25 (a legacy session whose requests and answers land on every replica) and
# 2026-07-28. The cluster is started and stopped here (redis-server and nginx from Debian's
# packages, installed by cluster.sh when missing). Needs python3 (>= 3.10), pip, cargo.
#
# Env: PYTHON, INTEROP_VENV (see venv.sh), MCP_CLUSTER_PORT (default: a free base, five
#      consecutive ports), INTEROP_VERBOSE=1 prints every wire log.
set -euo pipefail
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/python/venv.sh

python_venv "python cluster interop"

# Five consecutive free ports below the ephemeral range: nginx, three replicas, Redis.
free_base() {
    local base p
    for _ in $(seq 50); do
        base=$((20000 + RANDOM % 10000))
        for p in $(seq "$base" $((base + 4))); do
            (echo >"/dev/tcp/127.0.0.1/$p") 2>/dev/null && continue 2
        done
        echo "$base"
        return 0
    done
    echo "no five free ports" >&2
    return 1
}
PORT="${MCP_CLUSTER_PORT:-$(free_base)}"
export MCP_CLUSTER_PORT="$PORT"
export MCP_CLUSTER_DIR="$(interop_abs target)/interop-cluster-$PORT"
export MCP_CLUSTER_TTL=900
# The features the other interop scripts build the example with (--all-features).
export MCP_CLUSTER_FEATURES=full
unset MCP_REQUEST_STATE_KEYS
rm -rf "$MCP_CLUSTER_DIR"
trap 'timeout 60 deploy/cluster.sh stop >/dev/null 2>&1 || true' EXIT

echo "== deploy/cluster.sh start (nginx on $PORT, replicas on the next three, Redis on the fourth)"
timeout 900 deploy/cluster.sh start | tail -n 1
BASE="http://127.0.0.1:$PORT"

echo "== python client -> nginx -> three everything replicas (Streamable HTTP) at 2025-11-25 and 2026-07-28"
rc=0
INTEROP_CLUSTER=1 INTEROP_TRANSPORTS=streamable-http timeout 600 "$VENV/bin/python" interop/python/test_everything.py \
    "${CARGO_TARGET_DIR:-target}/debug/examples/everything" "2025-11-25=$BASE" "2026-07-28=$BASE" || rc=$?
if [ "$rc" -ne 0 ]; then
    for log in "$MCP_CLUSTER_DIR"/*.log; do interop_tail_log "$log"; done
fi
exit "$rc"
