#!/usr/bin/env bash
# Soak: a million calls or more through one server process per transport, the server's RSS
# sampled every second, to show that memory stays flat under sustained load.
#
# Usage: scripts/soak.sh [--calls N] [--no-build]
#
#   --calls N   calls per transport (default 1000000)
#   --no-build  reuse the release binaries built by an earlier run (or bench/run.sh)
#
# What runs (all on loopback, every process bounded by `timeout`):
#   stdio: `bench/loadgen stdio` pipelines `tools/call add` (window 64) into one
#          `bench_server --stdio`;
#   http:  `bench/loadgen http` drives one `bench_server --http` with 32 clients, each its
#          own legacy session, 2025-11-25 Streamable HTTP.
# stdio: a short calibration run measures the rate; the soak then runs long enough for N
# calls (30 s at least). http: runs of 10 s until N calls are answered (30 s at least).
# Output: bench/results/soak-<time>/{stdio,http}.csv (second, RSS KiB), the loadgen
# reports (*.json) and summary.md, a table of RSS over the run (the one in RELIABILITY.md).
# Release builds (a few minutes the first time): run it in the background, never in CI.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CALLS=1000000 BUILD=1
while [ $# -gt 0 ]; do
  case $1 in
    --calls) CALLS=$2; shift ;;
    --no-build) BUILD=0 ;;
    *) echo "usage: scripts/soak.sh [--calls N] [--no-build]" >&2; exit 2 ;;
  esac
  shift
done
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
OUT=$ROOT/bench/results/soak-$(date -u +%Y%m%dT%H%M%SZ)
mkdir -p "$OUT"
if [ "$BUILD" = 1 ]; then
  echo "== building (release)" >&2
  timeout 3600 cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" --target-dir "$TARGET" -p mcp-framework-tests --features http --example bench_server
  timeout 3600 cargo build --release --quiet --manifest-path "$ROOT/bench/Cargo.toml" --target-dir "$ROOT/bench/target" --bin loadgen
fi
SERVER=$TARGET/release/examples/bench_server
LOADGEN=$ROOT/bench/target/release/loadgen
PORT=${SOAK_PORT:-3980}

# sample PID CSV: one "second,rss_kib" line per second while PID lives.
sample() {
  local pid=$1 csv=$2 t=0 rss
  echo "second,rss_kib" > "$csv"
  while rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$pid/status" 2>/dev/null) && [ -n "$rss" ]; do
    echo "$t,$rss" >> "$csv"
    sleep 1
    t=$((t + 1))
  done
}

# seconds_for RATE: how long a run must last for CALLS calls at RATE calls/s (+15%), and
# never under 30 s: long enough for a trend to show.
seconds_for() {
  python3 -c "import math,sys; print(max(30, math.ceil($CALLS * 1.15 / float(sys.argv[1]))))" "$1"
}

# child_of PID: the (first) child process of PID, or nothing.
child_of() { [ -n "$1" ] && pgrep -P "$1" | head -n1 || true; }

rate_of() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['calls_per_s'])" "$1"; }

soak_stdio() {
  echo "== stdio: calibration" >&2
  timeout 60 "$LOADGEN" stdio --warmup 0.5 --duration 2 -- "$SERVER" --stdio > "$OUT/stdio-calibration.json"
  local secs
  secs=$(seconds_for "$(rate_of "$OUT/stdio-calibration.json")")
  echo "== stdio: ${secs}s" >&2
  timeout $((secs + 120)) "$LOADGEN" stdio --warmup 0 --duration "$secs" -- "$SERVER" --stdio > "$OUT/stdio.json" &
  local gen=$! server=
  for _ in $(seq 100); do
    server=$(child_of "$(child_of "$gen")")
    [ -n "$server" ] && break
    sleep 0.05
  done
  [ -n "$server" ] || { echo "stdio server did not start" >&2; exit 1; }
  sample "$server" "$OUT/stdio.csv" &
  wait "$gen"
}

soak_http() {
  timeout 3600 "$SERVER" --http "127.0.0.1:$PORT" >/dev/null 2>&1 &
  local wrapper=$! server=
  for _ in $(seq 200); do
    (echo >"/dev/tcp/127.0.0.1/$PORT") 2>/dev/null && break
    sleep 0.025
  done
  server=$(child_of "$wrapper")
  [ -n "$server" ] || { echo "http server did not start" >&2; exit 1; }
  sample "$server" "$OUT/http.csv" &
  local sampler=$!
  # Runs of 10 s, one after the other, until CALLS calls are answered (30 s at least): the
  # count holds whatever else the machine is doing, and each run brings new sessions.
  local total=0 run=0 start=$SECONDS
  while [ "$total" -lt "$CALLS" ] || [ $((SECONDS - start)) -lt 30 ]; do
    timeout 130 "$LOADGEN" http --url "http://127.0.0.1:$PORT/mcp" --pid "$server" --warmup 0 --duration 10 > "$OUT/http-$run.json"
    total=$((total + $(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['calls'])" "$OUT/http-$run.json")))
    run=$((run + 1))
    echo "== http: $total calls" >&2
    [ "$run" -lt 300 ] || { echo "http: under $CALLS calls in 300 runs" >&2; exit 1; }
  done
  sleep 2 # two more samples after the load: what stays
  kill "$server"
  wait "$sampler" 2>/dev/null || true
}

soak_stdio
soak_http
python3 - "$OUT" <<'PY' > "$OUT/summary.md"
import csv, glob, json, sys
out = sys.argv[1]
print("| transport | calls | errors | calls/s | RSS at 1 s | at 25% | at 50% | at 75% | at end | peak |")
print("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
for t in ("stdio", "http"):
    reps = [json.load(open(f)) for f in sorted(glob.glob(f"{out}/{t}.json") + glob.glob(f"{out}/{t}-[0-9]*.json"))]
    rep = {k: sum(r[k] for r in reps) for k in ("calls", "errors", "secs")}
    rep["calls_per_s"] = rep["calls"] / rep["secs"]
    rss = [int(r["rss_kib"]) for r in csv.DictReader(open(f"{out}/{t}.csv"))]
    mib = lambda k: f"{k / 1024:.1f} MiB"
    at = lambda f: rss[min(len(rss) - 1, int(f * (len(rss) - 1)))]
    print(f"| {t} | {rep['calls']:,} | {rep['errors']} | {rep['calls_per_s']:,.0f} | "
          f"{mib(rss[min(1, len(rss) - 1)])} | {mib(at(0.25))} | {mib(at(0.5))} | "
          f"{mib(at(0.75))} | {mib(rss[-1])} | {mib(max(rss))} |")
print()
print("RSS every 5 s (MiB):")
print()
for t in ("stdio", "http"):
    rows = [(int(r["second"]), int(r["rss_kib"])) for r in csv.DictReader(open(f"{out}/{t}.csv"))]
    print(f"- {t}: " + ", ".join(f"{s} s {k / 1024:.1f}" for s, k in rows if s % 5 == 0))
PY
cat "$OUT/summary.md"
echo "results: $OUT" >&2
