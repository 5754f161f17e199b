#!/usr/bin/env bash
# Conformance: the official MCP conformance suite (npm @modelcontextprotocol/conformance)
# against tests/examples/conformance_server.rs over Streamable HTTP, both eras.
#
#   0.1.16        — the 2025 revisions
#   0.2.0 alpha   — --requirements 2025-11-25 and --requirements 2026-07-28
#   extensions    — scenarios listed in scenarios/ext-*.txt (e.g. tasks-*) are not on the
#                   spec timeline: the alpha CLI runs them once, without --spec-version
#
# The suites are installed into target/conformance (never the repo). Node 20 lacks
# fs.globSync, which the CLI imports: node-polyfill/ supplies it (a no-op on Node 22+).
# Exits non-zero when any scenario fails. Each scenario's outcome is a line of
# $DIR/results-server.tsv (side, suite, revision, scenario, outcome, checks), from which
# scripts/conformance_table.py renders the README's conformance table (.ci/run checks that
# the README shows exactly these results).
#
# Env: CONFORMANCE_PORT (default 3931), CONFORMANCE_DIR (default target/conformance).
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."
. interop/lib.sh

STABLE=0.1.16
ALPHA=0.2.0-alpha.12
PORT="${CONFORMANCE_PORT:-3931}"
DIR="${CONFORMANCE_DIR:-target/conformance}"
URL="http://127.0.0.1:$PORT/mcp"
PRELOAD="$PWD/interop/conformance/node-polyfill/register.mjs"
# The scenarios to run: every line of scenarios/*.txt (one file per feature area); those of
# scenarios/ext-*.txt are extension scenarios.
scenario_lines() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$@" | grep -v '^$' || true; }
shopt -s nullglob
EXT_FILES=(interop/conformance/scenarios/ext-*.txt)
CORE_FILES=()
for f in interop/conformance/scenarios/*.txt; do
    case "$(basename "$f")" in ext-*) ;; *) CORE_FILES+=("$f") ;; esac
done
mapfile -t SCENARIOS < <(scenario_lines "${CORE_FILES[@]}")
EXT_SCENARIOS=()
if [ "${#EXT_FILES[@]}" -gt 0 ]; then mapfile -t EXT_SCENARIOS < <(scenario_lines "${EXT_FILES[@]}"); fi

install_suite() { # version -> prints the CLI path
    interop_npm_install "$DIR/$1" @modelcontextprotocol/conformance "$1"
    echo "$DIR/$1/node_modules/@modelcontextprotocol/conformance/dist/index.js"
}

echo "== conformance: installing suites $STABLE and $ALPHA into $DIR"
CLI_STABLE="$(install_suite "$STABLE")"
CLI_ALPHA="$(install_suite "$ALPHA")"

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build -p mcp-framework-tests --example conformance_server --all-features"
[ -n "${CONFORMANCE_NO_BUILD:-}" ] || timeout 900 cargo build -p mcp-framework-tests --example conformance_server --all-features

LOG="$DIR/server.log"
interop_start_listening conformance_server "$LOG" "$PORT" $BIN/conformance_server --port "$PORT"

failed=0
passed=0
RESULTS="$DIR/results-server.tsv"
: >"$RESULTS"
record() { # suite revision scenario outcome checks
    printf 'server\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RESULTS"
}
run() { # suite revision scenario cli args...
    local suite="$1" rev="$2" scenario="$3" cli="$4"
    local label="$suite $scenario${rev:+ @$rev}"
    shift 4
    local out
    local rc=0
    out="$(timeout 120 node --import "$PRELOAD" "$cli" server --url "$URL" "$@" 2>&1)" || rc=$?
    local checks
    checks="$(grep -Eo 'Passed: [0-9]+/[0-9]+' <<<"$out" | tail -1 | sed 's/Passed: //')" || true
    if [ "$rc" -eq 0 ] && grep -q '^SKIPPED' <<<"$out"; then
        echo "skip $label (not applicable at this revision)"
        record "$suite" "$rev" "$scenario" skip -
    elif [ "$rc" -eq 0 ] && grep -Eq 'Passed: [0-9]+/[0-9]+, 0 failed' <<<"$out" \
        && ! grep -q 'FAILURE' <<<"$out"; then
        passed=$((passed + 1))
        echo "ok   $label Passed: $checks"
        record "$suite" "$rev" "$scenario" ok "$checks"
    else
        failed=$((failed + 1))
        echo "FAIL $label"
        echo "$out" | grep -E 'FAILURE|WARNING|Passed|rror' | head -40
        record "$suite" "$rev" "$scenario" FAIL "${checks:--}"
    fi
}

# Each CLI's own scenario list: a scenario it does not have is not run by it.
list_of() { node --import "$PRELOAD" "$1" list 2>/dev/null | sed -n 's/^  - \([^ ]*\).*/\1/p'; }
STABLE_LIST="$(list_of "$CLI_STABLE")"
ALPHA_LIST="$(list_of "$CLI_ALPHA")"
has() { grep -qx -- "$2" <<<"$1"; }

for s in "${SCENARIOS[@]}"; do
    if has "$STABLE_LIST" "$s"; then run "$STABLE" "" "$s" "$CLI_STABLE" --scenario "$s"; fi
done
for req in 2025-11-25 2026-07-28; do
    for s in "${SCENARIOS[@]}"; do
        if has "$ALPHA_LIST" "$s"; then
            run "$ALPHA" "$req" "$s" "$CLI_ALPHA" --scenario "$s" --spec-version "$req"
        else
            echo "FAIL $s: not a scenario of $ALPHA"; failed=$((failed + 1))
            record "$ALPHA" "$req" "$s" FAIL -
        fi
    done
done

# Extension scenarios: once each, at the wire the CLI picks for them.
for s in "${EXT_SCENARIOS[@]}"; do
    if has "$ALPHA_LIST" "$s"; then
        run "$ALPHA" extension "$s" "$CLI_ALPHA" --scenario "$s"
    else
        echo "FAIL $s: not a scenario of $ALPHA"; failed=$((failed + 1))
        record "$ALPHA" extension "$s" FAIL -
    fi
done

# The whole suites as they score a server: 0.1.16's active set, and the alpha's requirements
# of each revision (with no expected-failures list). Their totals are printed; a scored
# failure fails the run (the CLI exits non-zero). "Not scored" scenarios (extensions,
# pending) are listed by the CLI and do not change its exit code.
# Each total is recorded as the scenario `*` of its suite and revision (the suite's score).
whole() { # label suite revision cli args...
    local label="$1" suite="$2" rev="$3" cli="$4" out rc=0 total
    shift 4
    out="$(timeout 600 node --import "$PRELOAD" "$cli" server --url "$URL" "$@" 2>&1)" || rc=$?
    total="$(grep -E '^Total:' <<<"$out" | tail -1)" || true
    echo "== $label: $total"
    grep -E '^(Not scored|  ✗)' <<<"$out" || true
    local p f
    p="$(sed -nE 's/^Total: ([0-9]+) passed.*/\1/p' <<<"$total")"
    f="$(sed -nE 's/^Total: [0-9]+ passed, ([0-9]+) failed.*/\1/p' <<<"$total")"
    if [ "$rc" -ne 0 ] || [ -z "$p" ]; then
        failed=$((failed + 1))
        echo "FAIL $label (exit $rc)"
        grep -E '^✗' <<<"$out" | head -20 || true
        record "$suite" "$rev" "*" FAIL "${p:-0}/$(( ${p:-0} + ${f:-0} ))"
    else
        record "$suite" "$rev" "*" ok "$p/$((p + ${f:-0}))"
    fi
}
whole "$STABLE active suite" "$STABLE" "" "$CLI_STABLE"
whole "$ALPHA --requirements 2025-11-25" "$ALPHA" 2025-11-25 "$CLI_ALPHA" --requirements 2025-11-25
whole "$ALPHA --requirements 2026-07-28" "$ALPHA" 2026-07-28 "$CLI_ALPHA" --requirements 2026-07-28

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
