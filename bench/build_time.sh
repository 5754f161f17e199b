#!/usr/bin/env bash
# Times a clean build of examples/bookshop.rs (bench/build-time/ours, a crate depending on
# `mcp` from this repository) against the same server on rmcp (bench/build-time/rmcp), with
# the same cargo settings (the environment's; CARGO_INCREMENTAL and RUSTFLAGS are printed),
# interleaved over rounds, and writes one JSON line per build to bench/build-time/results.jsonl
# (read by bench/report.py for the BENCHMARKS.md target row):
#   full: everything, dependencies included (a fresh target dir);
#   leaf: only what is not a registry dependency, after a full build (ours: the four mcp
#         crates and the bookshop crate; rmcp: the bookshop crate);
#   incr: the rebuild after editing the tool's body (one string literal), incremental as
#         cargo's profile has it (dev: on), the edit a user makes most; done --incr times
#         (default 3) with a new literal each time, `incr_s` the median, `incr_runs` each;
#   bin_bytes: the size of the bookshop binary that build produced;
#   load, load_end: the 1-minute load average when the impl's first build started and
#         when its last ended (other builds on the machine skew the absolute times; the
#         interleaving keeps the ratios fair).
# Ours builds a copy of examples/bookshop.rs (bench/build-time/ours/src/main.rs, not in git),
# so that the edit never touches the repository's example; rmcp's source is edited in place
# and put back.
#
# The dev profile's results go to bench/build-time/results.jsonl (read by report.py), the
# others' to results-<profile>.jsonl. The target directories are bench/build-time/target-ours
# and target-rmcp, or "${BUILD_TIME_TARGET_PREFIX}ours" and "...rmcp" when that is set.
#
#   bench/build_time.sh [--rounds N] [--incr N] [--profile dev|release]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIR=$ROOT/bench/build-time
ROUNDS=1 PROFILE=dev INCR=3
while [ $# -gt 0 ]; do
  case $1 in
    --rounds) ROUNDS=$2; shift ;;
    --incr) INCR=$2; shift ;;
    --profile) PROFILE=$2; shift ;;
    *) echo "usage: bench/build_time.sh [--rounds N] [--incr N] [--profile dev|release]" >&2; exit 2 ;;
  esac
  shift
done
echo "# CARGO_INCREMENTAL=${CARGO_INCREMENTAL-} RUSTFLAGS=${RUSTFLAGS-} profile=$PROFILE $(rustc --version)" >&2
# Fetch first, so the timings contain no downloads.
mkdir -p "$DIR/ours/src"
cp "$ROOT/examples/bookshop.rs" "$DIR/ours/src/main.rs"
RMCP_SRC=$DIR/rmcp/src/main.rs
cp "$RMCP_SRC" "$RMCP_SRC.orig"
trap 'mv "$RMCP_SRC.orig" "$RMCP_SRC"' EXIT
for impl in ours rmcp; do
  cargo fetch --quiet --manifest-path "$DIR/$impl/Cargo.toml"
done
# edit IMPL N: the tool's body says "Found N books" (both sources say 3 to start with).
edit() {
  sed -i "s/Found [0-9]* books/Found $2 books/" "$DIR/$1/src/main.rs"
}
leaf_pkgs() {
  case $1 in
    ours) echo "-p bookshop-ours -p mcp-framework -p mcp-framework-runtime -p mcp-framework-core -p mcp-framework-macros" ;;
    rmcp) echo "-p bookshop-rmcp" ;;
  esac
}
build() { # impl target -> seconds
  local start end
  start=$(date +%s.%N)
  cargo build --quiet --profile "$PROFILE" --manifest-path "$DIR/$1/Cargo.toml" --target-dir "$2"
  end=$(date +%s.%N)
  echo "$end - $start" | bc
}
RESULTS=$DIR/results.jsonl
[ "$PROFILE" = dev ] || RESULTS=$DIR/results-$PROFILE.jsonl
: > "$RESULTS"
PREFIX=${BUILD_TIME_TARGET_PREFIX:-$DIR/target-}
median() { sort -g | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
for round in $(seq "$ROUNDS"); do
  for impl in ours rmcp; do
    target=$PREFIX$impl
    rm -rf "$target"
    load=$(cut -d' ' -f1 /proc/loadavg)
    full=$(build "$impl" "$target")
    # shellcheck disable=SC2046
    cargo clean --quiet --profile "$PROFILE" --manifest-path "$DIR/$impl/Cargo.toml" --target-dir "$target" $(leaf_pkgs "$impl")
    leaf=$(build "$impl" "$target")
    units=$(find "$target" -name '*.rlib' -path "*/deps/*" | wc -l)
    runs=()
    for k in $(seq "$INCR"); do
      edit "$impl" $((round * 10 + k + 3))
      runs+=("$(build "$impl" "$target")")
    done
    edit "$impl" 3
    incr=$(printf '%s\n' "${runs[@]}" | median)
    load_end=$(cut -d' ' -f1 /proc/loadavg)
    dir=$PROFILE; [ "$PROFILE" = dev ] && dir=debug
    bin_bytes=$(stat -c %s "$target/$dir/bookshop")
    incr_runs=$(IFS=,; echo "${runs[*]}")
    echo "{\"impl\":\"$impl\",\"round\":$round,\"profile\":\"$PROFILE\",\"full_s\":$full,\"leaf_s\":$leaf,\"incr_s\":$incr,\"incr_runs\":[$incr_runs],\"bin_bytes\":$bin_bytes,\"rlibs\":$units,\"load\":$load,\"load_end\":$load_end}" | tee -a "$RESULTS"
  done
done
