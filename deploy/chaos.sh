#!/usr/bin/env bash
# A chaos run: the deployment of deploy/cluster.sh (three replicas of examples/everything
# behind nginx, Redis under Sentinel: a primary, two replicas, three sentinels; or with
# --redis cluster a Redis Cluster of three primaries with a replica each) driven by
# clients (deploy/chaos_driver.py: plain HTTP legacy sessions with streamed answers and
# resumes, our client `mcp call` in both eras, and the official Python SDK client in both
# eras when interop's venv is there) while faults are injected one at a time, again and
# again, each healed before the next:
#
#   replica      SIGKILL a replica of ours, started again 8 s later
#   primary      SIGKILL the Redis primary (`redis-failover`; Cluster: the primary of slot
#                0), back 8 s later as a replica
#   redis-replica  SIGKILL a Redis replica, back 8 s later
#   sentinel     SIGKILL a sentinel, back 8 s later (Sentinel only)
#   nginx-view   nginx stops routing to a replica (`down` in its upstream, reloaded), and
#                routes to it again 8 s later
#
#   deploy/chaos.sh [--redis sentinel|cluster] [--duration S] [--every MIN-MAX] [--out DIR]
#
# --duration: how long the clients run (default 600); faults start 15 s in and stop 20 s
# before the end. --every: seconds between two faults, drawn at random (default 20-30).
# --out: where the report goes (default /tmp/mcp-chaos-PORT): faults.log, load.csv (the
# 1-minute load average every 10 s), ops.csv, seconds.csv, report.md. Ports from
# MCP_CLUSTER_PORT (default 27300; nginx on it, the ten after it taken). The driver's
# Python: INTEROP_VENV/bin/python (default ROOT/target/interop-venv), else python3 without
# the SDK client. `mcp`: MCP_CLI, else built into CARGO_TARGET_DIR.
#
# Everything it starts is bounded (the deployment's watchdog: --duration + 300 s; the
# driver: timeout) and stopped on exit, whatever the exit. Never in CI: it runs for
# minutes. The machine's load is recorded beside the figures: on a shared machine, builds
# beside the run slow everything down.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DURATION=600 EVERY_MIN=20 EVERY_MAX=30
PORT="${MCP_CLUSTER_PORT:-27300}"
OUT=""
MODE=sentinel
while [ $# -gt 0 ]; do
    case "$1" in
    --redis) MODE="${2:?}"; shift ;;
    --duration) DURATION="${2:?}"; shift ;;
    --every) EVERY_MIN="${2%-*}" EVERY_MAX="${2#*-}"; shift ;;
    --out) OUT="${2:?}"; shift ;;
    *) sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//' >&2; exit 2 ;;
    esac
    shift
done
case "$DURATION$EVERY_MIN$EVERY_MAX" in *[!0-9]*) echo "chaos: numbers expected" >&2; exit 2 ;; esac
[ "$EVERY_MIN" -le "$EVERY_MAX" ] || { echo "chaos: --every MIN-MAX with MIN <= MAX" >&2; exit 2; }
case "$MODE" in sentinel | cluster) ;; *) echo "chaos: --redis sentinel|cluster, got '$MODE'" >&2; exit 2 ;; esac
OUT="${OUT:-/tmp/mcp-chaos-$PORT}"
export MCP_CLUSTER_PORT="$PORT" MCP_CLUSTER_DIR="$OUT/cluster" MCP_CLUSTER_TTL=$((DURATION + 300))
export CARGO_TARGET_DIR="${CARGO_TARGET_DIR:-$ROOT/target}"
CLUSTER="$ROOT/deploy/cluster.sh"
HEAL_AFTER=8

rm -rf "$OUT"
mkdir -p "$OUT"
DRIVER_PID=""
LOAD_PID=""
cleanup() {
    [ -n "$DRIVER_PID" ] && kill "$DRIVER_PID" 2>/dev/null || true
    [ -n "$LOAD_PID" ] && kill "$LOAD_PID" 2>/dev/null || true
    timeout 60 "$CLUSTER" stop >/dev/null 2>&1 || true
}
trap cleanup EXIT INT TERM

VENV="${INTEROP_VENV:-$ROOT/target/interop-venv}"
PY=python3
[ -x "$VENV/bin/python" ] && PY="$VENV/bin/python"
CLI="${MCP_CLI:-}"
if [ -z "$CLI" ]; then
    (cd "$ROOT" && timeout 1800 cargo build -q -p mcp-framework-cli)
    CLI="$CARGO_TARGET_DIR/debug/mcp"
fi

timeout 1800 "$CLUSTER" --redis "$MODE" start >"$OUT/start.log"
URL="$(sed -n 's/^url=//p' "$OUT/start.log")"
REDIS_PORT=$((PORT + 4))

now() { date +%s.%N; }
log_fault() { echo "$(now) $1 $2" >>"$OUT/faults.log"; echo "chaos: $1 $2" >&2; }
(while sleep 10; do echo "$(date +%s),$(cut -d' ' -f1 /proc/loadavg)"; done) >"$OUT/load.csv" &
LOAD_PID=$!

PYTHONDONTWRITEBYTECODE=1 timeout -s KILL $((DURATION + 300)) \
    "$PY" "$ROOT/deploy/chaos_driver.py" "$URL" "$DURATION" "$OUT" "$CLI" >"$OUT/driver.log" 2>&1 &
DRIVER_PID=$!

# The Redis data nodes: name and port.
if [ "$MODE" = sentinel ]; then
    NODES=(redis redis-replica redis-replica2)
    kinds=(replica primary redis-replica sentinel nginx-view)
else
    NODES=(redis1 redis2 redis3 redis4 redis5 redis6)
    kinds=(replica primary redis-replica nginx-view)
fi
primary_port() { redis-cli -p $((REDIS_PORT + 3)) sentinel get-master-addr-by-name mymaster 2>/dev/null | sed -n 2p || true; }
nginx_route() { # replica-port down|up
    local conf="$MCP_CLUSTER_DIR/nginx/nginx.conf"
    if [ "$2" = down ]; then
        sed -i "s|server 127.0.0.1:$1 max_fails|server 127.0.0.1:$1 down max_fails|" "$conf"
    else
        sed -i "s|server 127.0.0.1:$1 down max_fails|server 127.0.0.1:$1 max_fails|" "$conf"
    fi
    kill -HUP "$(cat "$MCP_CLUSTER_DIR/nginx/nginx.pid")"
}

start=$(date +%s)
sleep 15
k=0
while :; do
    wait_s=$((EVERY_MIN + RANDOM % (EVERY_MAX - EVERY_MIN + 1)))
    [ $(($(date +%s) + HEAL_AFTER + 20)) -le $((start + DURATION)) ] || break
    kind="${kinds[$((k % ${#kinds[@]}))]}"
    k=$((k + 1))
    case "$kind" in
    replica)
        n=$((1 + RANDOM % 3))
        log_fault inject "replica replica$n"
        timeout 10 "$CLUSTER" kill "$n"
        sleep "$HEAL_AFTER"
        timeout 60 "$CLUSTER" restart "$n" >/dev/null
        log_fault heal "replica replica$n"
        ;;
    primary)
        p="$(primary_port)"
        [ "$MODE" = cluster ] && p=slot0
        log_fault inject "primary redis:$p"
        timeout 60 "$CLUSTER" redis-failover >&2 || true
        sleep "$HEAL_AFTER"
        timeout 60 "$CLUSTER" redis-start >/dev/null
        log_fault heal "primary redis:$p"
        ;;
    redis-replica)
        names=()
        for i in "${!NODES[@]}"; do
            role="$(redis-cli -p $((REDIS_PORT + i)) role 2>/dev/null | head -1 || true)"
            [ "$role" = slave ] && names+=("${NODES[$i]}")
        done
        [ "${#names[@]}" -gt 0 ] || { log_fault skip "redis-replica none"; continue; }
        victim="${names[$((RANDOM % ${#names[@]}))]}"
        log_fault inject "redis-replica $victim"
        timeout 10 "$CLUSTER" redis-kill "$victim"
        sleep "$HEAL_AFTER"
        timeout 60 "$CLUSTER" redis-start >/dev/null
        log_fault heal "redis-replica $victim"
        ;;
    sentinel)
        victim="sentinel$((1 + RANDOM % 3))"
        log_fault inject "sentinel $victim"
        timeout 10 "$CLUSTER" redis-kill "$victim"
        sleep "$HEAL_AFTER"
        timeout 60 "$CLUSTER" redis-start >/dev/null
        log_fault heal "sentinel $victim"
        ;;
    nginx-view)
        n=$((1 + RANDOM % 3))
        log_fault inject "nginx-view replica$n"
        nginx_route $((PORT + n)) down
        sleep "$HEAL_AFTER"
        nginx_route $((PORT + n)) up
        log_fault heal "nginx-view replica$n"
        ;;
    esac
    sleep $((wait_s > HEAL_AFTER ? wait_s - HEAL_AFTER : 1))
done

status=0
wait "$DRIVER_PID" || status=$?
DRIVER_PID=""
{
    echo
    echo "Machine: $(nproc) cores, shared with builds and tests of other sessions; 1-minute load"
    echo "average during the run (every 10 s): $(awk -F, '{s+=$2; if ($2>m) m=$2; n++} END {if (n) printf "mean %.2f, max %.2f", s/n, m}' "$OUT/load.csv")."
} | tee -a "$OUT/report.md"
echo "chaos: report in $OUT/report.md (driver exit $status)" >&2
exit "$status"
