#!/usr/bin/env bash
# Fuzzing on stable Rust: runs each property-test target for a while.
#
# Usage: scripts/fuzz.sh [SECONDS] [TARGET...]
#
#   SECONDS  how long each target runs (default 300); every run is bounded by `timeout`.
#   TARGET   any of: jsonrpc framing headers template tool_args sse request_state
#            (default: all of them, one after the other).
#
# The targets are the modules of tests/tests/fuzz.rs and the `fuzz` unit modules of
# mcp-runtime/src/client/sse.rs and mcp-runtime/src/session/request_state.rs. Each target
# is run again and again, with MCP_FUZZ_CASES cases per property per run (default 20000,
# and a fortieth of it for tool_args, whose cases each serve a connection; proptest draws
# a new random seed every run), until SECONDS are up. A failure is shrunk,
# printed, saved as a seed (tests/tests/proptest-regressions/fuzz.txt, or under
# mcp-runtime/proptest-regressions/ for the unit targets; commit it), and stops the
# script with a non-zero status. The last run of a target is cut by `timeout` when the
# time is up: that is not a failure (a failure still being shrunk at that moment is lost,
# so give a failing target more time to see it).
#
# Environment: CARGO_TARGET_DIR as usual; MCP_FUZZ_CASES to change the cases per run.
set -euo pipefail

cd "$(dirname "$0")/.."
seconds="${1:-300}"
shift || true
targets=("$@")
if [ "${#targets[@]}" -eq 0 ]; then
    targets=(jsonrpc framing headers template tool_args sse request_state)
fi
export MCP_FUZZ_CASES="${MCP_FUZZ_CASES:-20000}"

# Build once, outside the timed runs.
cargo test --all-features -p mcp-framework-tests --test fuzz --no-run --quiet
cargo test --all-features -p mcp-framework-runtime --lib --no-run --quiet

run_target() {
    case "$1" in
        tool_args)
            MCP_FUZZ_CASES=$((MCP_FUZZ_CASES / 40 + 1)) \
                timeout "$2" cargo test --all-features --quiet -p mcp-framework-tests --test fuzz -- "$1::" ;;
        jsonrpc | framing | headers | template)
            timeout "$2" cargo test --all-features --quiet -p mcp-framework-tests --test fuzz -- "$1::" ;;
        sse)
            timeout "$2" cargo test --all-features --quiet -p mcp-framework-runtime --lib -- client::sse::tests::fuzz:: ;;
        request_state)
            timeout "$2" cargo test --all-features --quiet -p mcp-framework-runtime --lib -- session::request_state::tests::fuzz:: ;;
        *)
            echo "unknown target: $1" >&2
            return 2 ;;
    esac
}

for target in "${targets[@]}"; do
    start=$(date +%s)
    end=$((start + seconds))
    runs=0
    while :; do
        left=$((end - $(date +%s)))
        [ "$left" -gt 0 ] || break
        status=0
        run_target "$target" "$left" >"/tmp/fuzz-$target.log" 2>&1 || status=$?
        if [ "$status" -eq 124 ]; then
            break # time is up, mid-run
        elif [ "$status" -ne 0 ]; then
            cat "/tmp/fuzz-$target.log"
            echo "fuzz: $target FAILED after $(( $(date +%s) - start )) s (run $((runs + 1)))" >&2
            exit 1
        fi
        runs=$((runs + 1))
    done
    cases=$MCP_FUZZ_CASES
    [ "$target" != tool_args ] || cases=$((MCP_FUZZ_CASES / 40 + 1))
    echo "fuzz: $target: $(( $(date +%s) - start )) s, $runs complete runs of $cases cases per property, no failure"
done
