#!/usr/bin/env bash
# The proxy hop (BENCHMARKS.md, "The proxy hop"): `tools/call` on `bench_server` driven
# directly against the same call through `examples/gateway` mounting it as `bench`, over
# stdio and Streamable HTTP, 1 and 32 in flight. Rounds interleave direct and proxied runs
# (the machine may be shared); the table gives each row's medians over the rounds.
#
#   bench/hop.sh [--rounds N] [--duration S] [--no-build] [--before GATEWAY]
#
# --before: also run this gateway binary (e.g. one built from an older commit) in every
# round, interleaved, and give its proxied figures beside the others.
#
# Env: CARGO_TARGET_DIR (for bench_server and gateway), BENCH_PORT (first of 2 ports,
# default 4100), SERVER and GATEWAY (other binaries, e.g. an older gateway, with
# --no-build). Needs bench/target/release/loadgen (bench/run.sh builds it).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=3 DURATION=3 WARMUP=0.5 BUILD=1 BEFORE=
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift ;;
    --duration) DURATION=$2; shift ;;
    --no-build) BUILD=0 ;;
    --before) BEFORE=$2; shift ;;
    *) echo "usage: bench/hop.sh [--rounds N] [--duration S] [--no-build] [--before GATEWAY]" >&2; exit 2 ;;
  esac
  shift
done
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
if [ "$BUILD" = 1 ]; then
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --target-dir "$TARGET" \
    -p mcp-framework-tests --features http,client --example bench_server
  cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --target-dir "$TARGET" \
    --features http,proxy --example gateway
fi
SERVER=${SERVER:-$TARGET/release/examples/bench_server}
GATEWAY=${GATEWAY:-$TARGET/release/examples/gateway}
LOADGEN=$ROOT/bench/target/release/loadgen
UP_PORT=${BENCH_PORT:-4100}
GW_PORT=$((UP_PORT + 1))
OUT=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$OUT"' EXIT

wait_port() {
  for _ in $(seq 200); do
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.025
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# row name, then the loadgen run; appends its JSON to $OUT/<row>.
record() {
  local row=$1
  shift
  timeout 120 "$@" >>"$OUT/$row" || echo '{"errors":1}' >>"$OUT/$row"
}

common=(--warmup "$WARMUP" --duration "$DURATION")
for round in $(seq "$ROUNDS"); do
  echo "== round $round/$ROUNDS, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2
  for w in 1 32; do
    record "stdio-$w-direct" "$LOADGEN" stdio --window "$w" "${common[@]}" -- "$SERVER" --stdio
    for g in proxied ${BEFORE:+before}; do
      bin=$GATEWAY
      [ "$g" = before ] && bin=$BEFORE
      record "stdio-$w-$g" "$LOADGEN" stdio --window "$w" "${common[@]}" --prefix bench_ \
        -- "$bin" --stdio --upstream "bench=$SERVER --stdio"
    done
  done
  "$SERVER" --http "127.0.0.1:$UP_PORT" --max-sessions 20000 >/dev/null 2>&1 &
  up=$!
  wait_port "$UP_PORT"
  for c in 1 32; do
    record "http-$c-direct" "$LOADGEN" http --clients "$c" "${common[@]}" \
      --url "http://127.0.0.1:$UP_PORT/mcp" --pid "$up"
    for g in proxied ${BEFORE:+before}; do
      bin=$GATEWAY
      [ "$g" = before ] && bin=$BEFORE
      "$bin" --http "127.0.0.1:$GW_PORT" --upstream "bench=http://127.0.0.1:$UP_PORT/mcp" \
        >/dev/null 2>&1 &
      gw=$!
      wait_port "$GW_PORT"
      record "http-$c-$g" "$LOADGEN" http --clients "$c" "${common[@]}" --prefix bench_ \
        --url "http://127.0.0.1:$GW_PORT/mcp" --pid "$gw"
      kill "$gw"
      wait "$gw" 2>/dev/null || true
    done
  done
  kill "$up"
  wait "$up" 2>/dev/null || true
done
echo "== done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$OUT" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
def runs(row):
    return [json.loads(l) for l in open(f"{out}/{row}") if l.strip()]
def med(rs, k):
    return statistics.median(r[k] for r in rs)
import os
before = os.path.exists(f"{out}/stdio-1-before")
b_head = " before: calls/s, ratio, p50 µs, gateway CPU µs/call |" if before else ""
print("| transport | in flight | direct calls/s | proxied calls/s | ratio | p50 µs direct → proxied (hop) | p99 µs direct → proxied | gateway CPU µs/call |" + b_head)
print("| --- | ---: | ---: | ---: | ---: | --- | --- | ---: |" + (" --- |" if before else ""))
for t, label in [("stdio", "stdio"), ("http", "Streamable HTTP")]:
    for n in (1, 32):
        d, p = runs(f"{t}-{n}-direct"), runs(f"{t}-{n}-proxied")
        errors = sum(r.get("errors", 0) for r in d + p)
        if errors:
            print(f"| {label} | {n} | {errors} errors |")
            continue
        dc, pc = med(d, "calls_per_s"), med(p, "calls_per_s")
        d50, p50 = med(d, "p50_us"), med(p, "p50_us")
        d99, p99 = med(d, "p99_us"), med(p, "p99_us")
        cpu = med(p, "server_cpu_us_per_call")
        b = ""
        if before:
            br = runs(f"{t}-{n}-before")
            bc = med(br, "calls_per_s")
            b = f" {bc:,.0f}, {bc / dc:.2f}×, {med(br, 'p50_us'):.1f}, {med(br, 'server_cpu_us_per_call'):.1f} |"
        print(f"| {label} | {n} | {dc:,.0f} | {pc:,.0f} | {pc / dc:.2f}× | {d50:.1f} → {p50:.1f} (+{p50 - d50:.0f}) | {d99:.1f} → {p99:.1f} | {cpu:.1f} |{b}".replace(",", " ").replace("  ", ", "))
EOF
