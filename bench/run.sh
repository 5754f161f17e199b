#!/usr/bin/env bash
# Builds the benchmark servers and the load generator (release), runs every scenario of the
# performance targets interleaved (each round runs every implementation once, A B C A B C ...),
# and rewrites the side-by-side section of BENCHMARKS.md from the medians.
#
#   bench/run.sh [--quick] [--rounds N] [--no-build] [--no-write]
#
# --quick: 2 rounds of 1 s runs (about 2 minutes); default: 5 rounds of 2 s (about 10).
# Env: BENCH_PORT (first of 10 ports, default 3990), CARGO_TARGET_DIR (for bench_server).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
BENCH=$ROOT/bench
ROUNDS=5 WARMUP=0.5 DURATION=2 COLD_RUNS=10 WRITE=1 QUICK=0 BUILD=1
while [ $# -gt 0 ]; do
  case $1 in
    --quick) QUICK=1 ROUNDS=2 WARMUP=0.3 DURATION=1 COLD_RUNS=5 ;;
    --rounds) ROUNDS=$2; shift ;;
    --no-build) BUILD=0 ;;
    --no-write) WRITE=0 ;;
    *) echo "usage: bench/run.sh [--quick] [--rounds N] [--no-build] [--no-write]" >&2; exit 2 ;;
  esac
  shift
done
PORT_BASE=${BENCH_PORT:-3990}
OUT=$BENCH/results/$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
RESULTS=$OUT/results.jsonl
: > "$RESULTS"

ROOT_TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ "$BUILD" = 1 ]; then
echo "== building (release)" >&2
# stdio rows: bench_server with the default features (what a stdio server is built with: no
# HTTP stack); HTTP rows: the same example with `http`. Both features sets build into one
# target dir, so the stdio binary is kept under its own name.
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --target-dir "$ROOT_TARGET" -p mcp-framework-tests --example bench_server
cp "$ROOT_TARGET/release/examples/bench_server" "$ROOT_TARGET/release/examples/bench_server-stdio"
cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --target-dir "$ROOT_TARGET" -p mcp-framework-tests --features http --example bench_server
cargo build --release --quiet --manifest-path "$BENCH/Cargo.toml" --target-dir "$BENCH/target"
fi
OURS=$ROOT_TARGET/release/examples/bench_server
OURS_STDIO=$ROOT_TARGET/release/examples/bench_server-stdio
LOADGEN=$BENCH/target/release/loadgen
FLOOR_STDIO=$BENCH/target/release/floor-stdio
FLOOR_HTTP=$BENCH/target/release/floor-http
RMCP=$BENCH/target/release/rmcp-server

# stdio implementations: the command that serves stdio.
stdio_cmd() {
  case $1 in
    ours) echo "$OURS_STDIO --stdio" ;;
    ours-10-layers) echo "$OURS_STDIO --stdio --layers 10" ;;
    floor) echo "$FLOOR_STDIO" ;;
    rmcp) echo "$RMCP --stdio" ;;
    rmcp-pipes) echo "$RMCP --stdio-pipes" ;;
  esac
}
# HTTP implementations: the command that serves Streamable HTTP at /mcp on $2.
http_cmd() {
  case $1 in
    ours) echo "$OURS --http 127.0.0.1:$2 --max-sessions 20000" ;;
    floor) echo "$FLOOR_HTTP 127.0.0.1:$2" ;;
    rmcp|rmcp-listen) echo "$RMCP --http 127.0.0.1:$2" ;;
    # the listen-memory scenario: change notifications on
    ours-listen) echo "$OURS --http 127.0.0.1:$2 --subscriptions" ;;
  esac
}

PORT_I=0
SERVER_PID=
FAIL='{"errors":1,"first_error":"no output"}'
start_http() { # impl -> sets PORT, SERVER_PID
  PORT=$((PORT_BASE + PORT_I % 10)); PORT_I=$((PORT_I + 1))
  # shellcheck disable=SC2046
  $(http_cmd "$1" "$PORT") >/dev/null 2>&1 &
  SERVER_PID=$!
  for _ in $(seq 200); do
    (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && return 0
    sleep 0.025
  done
  echo "server $1 did not listen on $PORT" >&2
  return 1
}
stop_http() {
  kill -TERM "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 100); do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.02; done
  kill -KILL "$SERVER_PID" 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
}

record() { # scenario impl round json
  printf '{"scenario":"%s","impl":"%s","round":%s,"result":%s}\n' "$1" "$2" "$3" "$4" >> "$RESULTS"
  printf '  %-22s %-15s %s\n' "$1" "$2" "$4" | cut -c1-220 >&2
}

# scenario | transport | loadgen arguments | implementations
SCENARIOS=(
  "stdio-64-add|stdio|--window 64|ours ours-10-layers floor rmcp rmcp-pipes"
  "stdio-64-add-2026|stdio|--window 64 --era modern|ours floor rmcp rmcp-pipes"
  "stdio-1-add|stdio|--window 1|ours floor rmcp rmcp-pipes"
  "stdio-16-echo-64k|stdio|--window 16 --tool echo --payload 65536|ours floor rmcp rmcp-pipes"
  "http-32-add|http|--clients 32|ours floor rmcp"
  "http-32-add-2026|http|--clients 32 --era modern|ours floor rmcp"
  "http-1-add|http|--clients 1|ours floor rmcp"
  "http-8-echo-64k|http|--clients 8 --tool echo --payload 65536|ours floor rmcp"
)

for round in $(seq "$ROUNDS"); do
  echo "== round $round/$ROUNDS (load average: $(cut -d' ' -f1-3 /proc/loadavg))" >&2
  cut -d' ' -f1 /proc/loadavg >> "$OUT/loadavg.txt"
  for s in "${SCENARIOS[@]}"; do
    IFS='|' read -r name transport args impls <<<"$s"
    for impl in $impls; do
      # shellcheck disable=SC2086
      if [ "$transport" = stdio ]; then
        json=$("$LOADGEN" stdio $args --warmup "$WARMUP" --duration "$DURATION" -- $(stdio_cmd "$impl")) || true
      else
        start_http "$impl"
        json=$("$LOADGEN" http $args --warmup "$WARMUP" --duration "$DURATION" \
          --url "http://127.0.0.1:$PORT/mcp" --pid "$SERVER_PID") || true
        stop_http
      fi
      record "$name" "$impl" "$round" "${json:-$FAIL}"
    done
  done
  for impl in ours floor rmcp; do
    # shellcheck disable=SC2046
    json=$("$LOADGEN" cold --runs "$COLD_RUNS" -- $(stdio_cmd "$impl")) || true
    record cold-start "$impl" "$round" "${json:-$FAIL}"
    # shellcheck disable=SC2046
    json=$("$LOADGEN" idle -- $(stdio_cmd "$impl")) || true
    record idle-stdio "$impl" "$round" "${json:-$FAIL}"
  done
done

cut -d' ' -f1 /proc/loadavg >> "$OUT/loadavg.txt"
echo "== memory: open sessions and streams" >&2
SESSIONS=10000 LISTENS=1000
[ "$QUICK" = 1 ] && SESSIONS=2000 LISTENS=200
for impl in ours rmcp; do
  start_http "$impl"
  json=$("$LOADGEN" sessions --url "http://127.0.0.1:$PORT/mcp" --count "$SESSIONS" --pid "$SERVER_PID") || true
  stop_http
  record "sessions-$SESSIONS" "$impl" 1 "${json:-$FAIL}"
  start_http "$impl-listen"
  json=$("$LOADGEN" listen --url "http://127.0.0.1:$PORT/mcp" --count "$LISTENS" --pid "$SERVER_PID") || true
  stop_http
  record "listen-$LISTENS" "$impl" 1 "${json:-$FAIL}"
done

{
  echo "nproc=$(nproc)"
  echo "cpu=$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
  echo "kernel=$(uname -sr)"
  echo "rustc=$(rustc --version)"
  echo "rmcp=$(grep -A1 '^name = "rmcp"$' "$BENCH/Cargo.lock" | sed -n 's/version = "\(.*\)"/\1/p')"
  echo "loadavg_end=$(cut -d' ' -f1-3 /proc/loadavg)"
  echo "rounds=$ROUNDS"
  echo "duration=$DURATION"
  echo "warmup=$WARMUP"
  echo "date=$(date -u +%Y-%m-%dT%H:%MZ)"
} > "$OUT/machine.txt"

if [ "$WRITE" = 1 ]; then
  python3 "$BENCH/report.py" "$OUT" "$ROOT/BENCHMARKS.md"
  echo "== wrote BENCHMARKS.md (raw results in ${OUT#"$ROOT"/})" >&2
else
  python3 "$BENCH/report.py" "$OUT" -
fi
