#!/usr/bin/env bash
# `mcp gateway` against FastMCP's proxy (BENCHMARKS.md, "`mcp gateway` against FastMCP's
# proxy"): the same upstream (`examples/everything --stdio`, a child of each gateway, from
# the same `mcpServers` file), the same client (`bench/loadgen http`, 2025-11-25 sessions,
# one connection and one call at a time per session), calling the upstream's `add` under
# the name each gateway lists it by. Three targets:
#
#   direct   `everything --http` itself (no hop: the baseline)
#   mcp      `mcp gateway --config FILE --http ADDR` (release build of this tree)
#   fastmcp  FastMCP's `create_proxy(FILE's dict)` served over Streamable HTTP
#            (bench/fastmcp_proxy.py; FastMCP from PyPI into a venv under the target dir)
#
# and three cells each: 1 and 32 sessions calling (calls in flight) for latency, 200 for
# throughput. Per row: calls/s, p50/p99 µs (and the hop: minus direct's at the same count),
# the serving process's CPU per call (the gateway's own, from /proc, without its upstream),
# the upstream child's CPU per call, the serving process's peak RSS (VmHWM) and the load
# average when the cell started. Prints a table; writes nothing into BENCHMARKS.md.
#
#   bench/gateway.sh [--quick] [--rounds N] [--duration S] [--targets LIST] [--no-build]
#
# Default: 1 round of 10 s per cell after a warm-up (2 s; 5 s for 200 sessions, whose
# `initialize`s a slow gateway is still answering after 2 s), about 2 minutes once built;
# --quick: 3 s per cell (1 s and 3 s warm-up). --targets: a comma-separated subset of
# direct,mcp,fastmcp (direct is needed for the hop column). With --rounds N the targets
# alternate within each round (direct, mcp, fastmcp, direct, ...) and the table gives
# medians over the rounds.
#
# agentgateway: tried only if its registry has it (`cargo info agentgateway`); it is not on
# crates.io (nor npm) and this machine reaches no source host, so the script says so and
# skips it.
#
# Env: CARGO_TARGET_DIR (everything, mcp, loadgen, the venv; default ROOT/target),
# BENCH_PORT (first of 3 ports, default 4200), FASTMCP_VERSION (default below),
# PYTHON (for the venv, default python3). Needs network once for `pip install fastmcp`.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
ROUNDS=1 DURATION=10 WARMUP=2 WARMUP_MANY=5 BUILD=1 TARGETS=direct,mcp,fastmcp
while [ $# -gt 0 ]; do
  case $1 in
    --quick) DURATION=3 WARMUP=1 WARMUP_MANY=3 ;;
    --targets) TARGETS=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --duration) DURATION=$2; shift ;;
    --no-build) BUILD=0 ;;
    *) echo "usage: bench/gateway.sh [--quick] [--rounds N] [--duration S] [--targets LIST] [--no-build]" >&2; exit 2 ;;
  esac
  shift
done
TARGET=${CARGO_TARGET_DIR:-$ROOT/target}
FASTMCP_VERSION=${FASTMCP_VERSION:-4.1.6}
VENV=$TARGET/fastmcp-venv
PORT=${BENCH_PORT:-4200}
SERVE_LIMIT=1800 # seconds any server this script starts may live
RUN_LIMIT=$(awk "BEGIN{print int($WARMUP_MANY + $DURATION + 120)}")

OUT=$(mktemp -d)
SPID=
cleanup() {
  local p kids=
  # The upstream a gateway started, should the gateway leave it behind.
  [ -n "$SPID" ] && kids=$(pgrep -P "$SPID" || true)
  for p in $(jobs -p); do kill "$p" 2>/dev/null || true; done
  for p in $kids; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$OUT"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$BUILD" = 1 ]; then
  echo "== building (release): everything, mcp, loadgen" >&2
  timeout 3600 cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" \
    --target-dir "$TARGET" -p mcp-framework --features http --example everything
  timeout 3600 cargo build --release --quiet --manifest-path "$ROOT/Cargo.toml" \
    --target-dir "$TARGET" -p mcp-framework-cli --bin mcp
  timeout 1800 cargo build --release --quiet --manifest-path "$ROOT/bench/Cargo.toml" \
    --target-dir "$TARGET" -p loadgen
fi
EVERYTHING=$TARGET/release/examples/everything
MCP=$TARGET/release/mcp
LOADGEN=$TARGET/release/loadgen

stamp=$VENV/.fastmcp-$FASTMCP_VERSION
if [ ! -f "$stamp" ]; then
  echo "== fastmcp==$FASTMCP_VERSION into $VENV" >&2
  timeout 120 "${PYTHON:-python3}" -m venv "$VENV"
  timeout 900 "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
    --quiet --timeout 60 --retries 3 "fastmcp==$FASTMCP_VERSION"
  touch "$stamp"
fi

echo "== agentgateway" >&2
if timeout 60 cargo info agentgateway >/dev/null 2>&1; then
  echo "agentgateway: a crate of that name exists, but this script does not build or drive it yet: skipped" >&2
else
  echo "agentgateway: not in the crates.io index (nor on npm); its source is on a host this machine cannot reach: skipped" >&2
fi

# The one `mcpServers` file both gateways read.
CONFIG=$OUT/servers.json
printf '{"mcpServers": {"ev": {"command": "%s", "args": ["--stdio"]}}}\n' "$EVERYTHING" >"$CONFIG"

wait_port() {
  for _ in $(seq 400); do
    (echo >"/dev/tcp/127.0.0.1/$1") 2>/dev/null && return 0
    sleep 0.05
  done
  echo "nothing listens on port $1" >&2
  return 1
}

# The names of the tools served at URL (a 2025-11-25 session, stdlib only).
tool_names() {
  timeout 60 python3 - "$1" <<'EOF'
import json, sys, urllib.request
url = sys.argv[1]
def post(body, sid=None):
    h = {"content-type": "application/json", "accept": "application/json, text/event-stream"}
    if sid:
        h["mcp-session-id"] = sid
        h["mcp-protocol-version"] = "2025-11-25"
    req = urllib.request.Request(url, data=json.dumps(body).encode(), headers=h, method="POST")
    with urllib.request.urlopen(req, timeout=30) as r:
        text = r.read().decode()
        sid = r.headers.get("mcp-session-id") or sid
        if r.headers.get("content-type", "").startswith("text/event-stream"):
            for ev in text.replace("\r\n", "\n").split("\n\n"):
                data = "\n".join(l[5:].lstrip() for l in ev.splitlines() if l.startswith("data:"))
                if '"id"' in data:
                    return json.loads(data), sid
            return None, sid
        return (json.loads(text) if text.strip() else None), sid
_, sid = post({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {},
    "clientInfo": {"name": "gateway.sh", "version": "0"}}})
post({"jsonrpc": "2.0", "method": "notifications/initialized"}, sid)
msg, _ = post({"jsonrpc": "2.0", "id": 1, "method": "tools/list", "params": {}}, sid)
print(" ".join(t["name"] for t in msg["result"]["tools"]))
EOF
}

# Starts target $1 on its port, bounded by timeout; sets SPID (the serving process itself,
# not the timeout wrapper), WRAP (the wrapper) and URL.
start() {
  local port
  case $1 in
    direct) port=$PORT
      timeout "$SERVE_LIMIT" "$EVERYTHING" --http "127.0.0.1:$port" >"$OUT/$1.log" 2>&1 & ;;
    mcp) port=$((PORT + 1))
      timeout "$SERVE_LIMIT" "$MCP" gateway --config "$CONFIG" --http "127.0.0.1:$port" \
        >"$OUT/$1.log" 2>&1 & ;;
    fastmcp) port=$((PORT + 2))
      timeout "$SERVE_LIMIT" "$VENV/bin/python" "$ROOT/bench/fastmcp_proxy.py" "$CONFIG" "$port" \
        >"$OUT/$1.log" 2>&1 & ;;
  esac
  WRAP=$!
  URL=http://127.0.0.1:$port/mcp
  wait_port "$port" || { cat "$OUT/$1.log" >&2; return 1; }
  SPID=$(pgrep -P "$WRAP" | head -1)
}

stop() {
  local kids
  kids=$(pgrep -P "$SPID" || true)
  kill "$WRAP" 2>/dev/null || true
  wait "$WRAP" 2>/dev/null || true
  for k in $kids; do kill "$k" 2>/dev/null || true; done
}

# CPU ticks (user + system) of the serving process's children (the upstream), summed.
child_ticks() {
  local t=0 k f
  for k in $(pgrep -P "$SPID" || true); do
    f=$(cut -d')' -f2- "/proc/$k/stat" 2>/dev/null) || continue
    set -- $f
    t=$((t + ${12} + ${13}))
  done
  echo "$t"
}

for round in $(seq "$ROUNDS"); do
  for t in ${TARGETS//,/ }; do
    start "$t"
    names=$(tool_names "$URL")
    add=
    for n in $names; do
      case $n in add | *add) [ -z "$add" ] && add=$n ;; esac
    done
    [ -n "$add" ] || { echo "$t: no add tool in: $names" >&2; exit 1; }
    prefix=${add%add}
    echo "== round $round/$ROUNDS: $t at $URL (pid $SPID), calling '$add'" >&2
    for c in 1 32 200; do
      load=$(cut -d' ' -f1 /proc/loadavg)
      t0=$(child_ticks)
      warmup=$WARMUP
      [ "$c" -ge 200 ] && warmup=$WARMUP_MANY
      json=$(timeout "$RUN_LIMIT" "$LOADGEN" http --clients "$c" --warmup "$warmup" \
        --duration "$DURATION" --prefix "$prefix" --url "$URL" --pid "$SPID" || true)
      [ -n "$json" ] || json='{"errors":1,"first_error":"loadgen gave no report"}'
      t1=$(child_ticks)
      echo "$json" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
r["load"], r["upstream_ticks"], r["upstreams"] = float(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
print(json.dumps(r))' "$load" "$((t1 - t0))" "$(pgrep -P "$SPID" | wc -l)" >>"$OUT/$t-$c"
      tail -1 "$OUT/$t-$c" | python3 -c '
import json, sys
r = json.loads(sys.stdin.read())
print("   %3s calling: %.0f calls/s, p50 %.0f us, load %s, upstream processes %s, errors %s %s" % (
    sys.argv[1], r.get("calls_per_s") or 0, r.get("p50_us") or 0, r["load"], r["upstreams"],
    r.get("errors"), r.get("first_error") or ""))' "$c" >&2
    done
    stop
  done
done
echo "== done, load $(cut -d' ' -f1-3 /proc/loadavg)" >&2

python3 - "$OUT" <<'EOF'
import json, statistics, sys
out = sys.argv[1]
def runs(row):
    try:
        return [json.loads(l) for l in open(f"{out}/{row}") if l.strip()]
    except FileNotFoundError:
        return []
def med(rs, k):
    v = [r[k] for r in rs if r.get(k) is not None]
    return statistics.median(v) if v else None
def fmt(v, d=1):
    return "–" if v is None else f"{v:,.{d}f}".replace(",", " ")
print("| target | sessions calling | calls/s | p50 µs (hop) | p99 µs (hop) | serving process CPU µs/call | upstream CPU µs/call | serving process peak RSS MiB | load (1 min) | errors |")
print("| --- | ---: | ---: | --- | --- | ---: | ---: | ---: | --- | ---: |")
for t in ("direct", "mcp", "fastmcp"):
    for c in (1, 32, 200):
        rs, ds = runs(f"{t}-{c}"), runs(f"direct-{c}")
        if not rs:
            continue
        ok = [r for r in rs if "calls_per_s" in r]
        errors = sum(r.get("errors", 0) for r in rs)
        first = next((r["first_error"] for r in rs if r.get("first_error")), "")
        loads = ", ".join(f"{r['load']:.2f}" for r in rs)
        if not ok:
            print(f"| {t} | {c} | – | – | – | – | – | – | {loads} | {errors}: {first[:80]} |")
            continue
        cols = []
        for k in ("p50_us", "p99_us"):
            v, d = med(ok, k), med([r for r in ds if k in r], k)
            hop = f" (+{v - d:,.0f})".replace(",", " ") if t != "direct" and d is not None else ""
            cols.append(fmt(v) + hop)
        # The upstream's ticks cover warm-up and run: per answered call (both phases).
        up = [r["upstream_ticks"] * 1e4 / r["answered"] for r in ok if r.get("answered")]
        up = statistics.median(up) if up and t != "direct" else None
        rss = med(ok, "peak_rss_kib")
        print(f"| {t} | {c} | {fmt(med(ok, 'calls_per_s'), 0)} | {cols[0]} | {cols[1]} "
              f"| {fmt(med(ok, 'server_cpu_us_per_call'))} | {fmt(up)} "
              f"| {fmt(rss / 1024 if rss else None)} | {loads} | {errors}{': ' + first[:80] if first else ''} |")
EOF
