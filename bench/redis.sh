#!/usr/bin/env bash
# In-memory vs Redis stores, side by side: `bench_server --http` (release, features `http`
# and `redis`) with its default in-memory stores, then with `--redis` on a `redis-server` of
# this script's own (loopback, no persistence, killed on exit), each driven by
# `bench/loadgen http` for legacy-session and stateless 2026-07-28 `add` calls, 1 and 32
# clients. Prints a Markdown table (the in-memory vs Redis section of BENCHMARKS.md).
#
#   bench/redis.sh [--duration S]     # about 2 minutes after the build
#
# Env: BENCH_PORT (first of 2 ports, default 4090), CARGO_TARGET_DIR (for bench_server and
# loadgen).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
DURATION=5 WARMUP=1
while [ $# -gt 0 ]; do
  case $1 in
    --duration) DURATION=$2; shift ;;
    *) echo "usage: bench/redis.sh [--duration S]" >&2; exit 2 ;;
  esac
  shift
done
PORT=${BENCH_PORT:-4090}
REDIS_PORT=$((PORT + 1))
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
command -v redis-server >/dev/null || { echo "redis-server is not installed" >&2; exit 1; }

echo "== building (release)" >&2
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --target-dir "$TARGET" \
  -p mcp-framework-tests --features http,redis --example bench_server
cargo build --release --quiet --manifest-path "$ROOT/bench/Cargo.toml" --target-dir "$TARGET/bench" -p loadgen
SERVER=$TARGET/release/examples/bench_server
LOADGEN=$TARGET/bench/release/loadgen

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

timeout $((DURATION * 8 + 120)) redis-server --port "$REDIS_PORT" --bind 127.0.0.1 \
  --save '' --appendonly no --daemonize no >/dev/null &
PIDS+=($!)
for _ in $(seq 50); do redis-cli -p "$REDIS_PORT" ping >/dev/null 2>&1 && break; sleep 0.1; done

# run STORES ERA CLIENTS: one loadgen run against a fresh server; its JSON report.
run() {
  local args=(--http "127.0.0.1:$PORT" --max-sessions 100000)
  [ "$1" = redis ] && args+=(--redis "redis://127.0.0.1:$REDIS_PORT/0")
  timeout $((DURATION + 60)) "$SERVER" "${args[@]}" 2>/dev/null &
  local pid=$!
  PIDS+=("$pid")
  for _ in $(seq 100); do
    (exec 3<>"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.05
  done
  # The server itself, not its `timeout` (for its CPU time and RSS).
  local server
  server=$(pgrep -P "$pid" | head -n 1)
  timeout $((DURATION + 30)) "$LOADGEN" http --url "http://127.0.0.1:$PORT/mcp" --pid "${server:-$pid}" \
    --era "$2" --tool add --clients "$3" --warmup "$WARMUP" --duration "$DURATION"
  kill "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  redis-cli -p "$REDIS_PORT" flushall >/dev/null
}

echo "| call | clients | stores | calls/s | p50 µs | p90 µs | p99 µs | server CPU µs/call | peak RSS MiB | errors |"
echo "| --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for era in legacy modern; do
  for clients in 1 32; do
    for stores in memory redis; do
      echo "== $era, $clients clients, $stores" >&2
      report=$(run "$stores" "$era" "$clients")
      python3 - "$era" "$clients" "$stores" "$report" <<'PY'
import json, sys
era, clients, stores, report = sys.argv[1:]
r = json.loads(report)
call = {"legacy": "legacy session `add`", "modern": "2026-07-28 `add` (stateless)"}[era]
cpu = r.get("server_cpu_us_per_call")
print(f"| {call} | {clients} | {stores} | {r['calls_per_s']:,.0f} | {r['p50_us']:.1f} | "
      f"{r['p90_us']:.1f} | {r['p99_us']:.1f} | {'—' if cpu is None else f'{cpu:.1f}'} | "
      f"{(r.get('peak_rss_kib') or 0) / 1024:.1f} | {r['errors']} |"
      .replace(",", " "))
PY
    done
  done
done
