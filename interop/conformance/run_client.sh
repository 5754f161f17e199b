#!/usr/bin/env bash
# Conformance, client side: the official suite's client scenarios drive
# tests/examples/conformance_client.rs (the suite starts a mock server per scenario and runs the
# client with the server URL as its last argument).
#
#   0.1.16        — every client scenario once
#   0.2.0 alpha   — every client scenario at each of --spec-version 2025-11-25 and
#                   2026-07-28 it applies to; one that applies to neither at the revision
#                   it names (2025-03-26 ones); extension scenarios once
#
# Env: CONFORMANCE_DIR (default target/conformance; the suites are installed by run.sh),
# CLIENT_SKIP: space-separated scenario names not run (default: none).
# Exits non-zero when any scenario fails. Each scenario's outcome is a line of
# $DIR/results-client.tsv (as run.sh's results-server.tsv; scripts/conformance_table.py).
set -euo pipefail
BIN="${CARGO_TARGET_DIR:-target}/debug/examples"
cd "$(dirname "$0")/../.."

STABLE=0.1.16
ALPHA=0.2.0-alpha.12
DIR="${CONFORMANCE_DIR:-target/conformance}"
PRELOAD="$PWD/interop/conformance/node-polyfill/register.mjs"
SKIP=" ${CLIENT_SKIP-} "

cli_of() { echo "$DIR/$1/node_modules/@modelcontextprotocol/conformance/dist/index.js"; }
CLI_STABLE="$(cli_of "$STABLE")"
CLI_ALPHA="$(cli_of "$ALPHA")"
for c in "$CLI_STABLE" "$CLI_ALPHA"; do
    [ -f "$c" ] || { echo "missing $c: run interop/conformance/run.sh first (it installs the suites)"; exit 1; }
done

# The example needs opt-in features; --all-features, as CI's test run (.ci/run) uses.
echo "== cargo build -p mcp-framework-tests --example conformance_client --all-features"
timeout 900 cargo build -p mcp-framework-tests --example conformance_client --all-features
CLIENT="$(cd "$BIN" && pwd)/conformance_client"

failed=0
passed=0
RESULTS="$DIR/results-client.tsv"
: >"$RESULTS"
record() { # suite revision scenario outcome checks
    printf 'client\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$RESULTS"
}
run() { # suite revision scenario cli args...
    local suite="$1" rev="$2" scenario="$3" cli="$4"
    local label="$suite $scenario${rev:+ @$rev}"
    shift 4
    local out rc=0
    out="$(timeout 120 node --import "$PRELOAD" "$cli" client --command "$CLIENT" "$@" 2>&1)" || rc=$?
    local checks
    checks="$(grep -Eo 'Passed: [0-9]+/[0-9]+' <<<"$out" | tail -1 | sed 's/Passed: //')" || true
    if [ "$rc" -eq 0 ] && grep -q '^SKIPPED' <<<"$out"; then
        echo "skip $label (not applicable at this revision)"
        record "$suite" "$rev" "$scenario" skip -
    elif [ "$rc" -eq 0 ] && grep -Eq 'Passed: [0-9]+/[0-9]+, 0 failed, 0 warnings' <<<"$out"; then
        passed=$((passed + 1))
        echo "ok   $label Passed: $checks"
        record "$suite" "$rev" "$scenario" ok "$checks"
    else
        failed=$((failed + 1))
        echo "FAIL $label"
        echo "$out" | grep -E 'FAILURE|WARNING|Passed|rror' | head -30
        record "$suite" "$rev" "$scenario" FAIL "${checks:--}"
    fi
}

# `list --client` prints "  - name [v1,v2]" per scenario.
list_of() { node --import "$PRELOAD" "$1" list --client 2>/dev/null | sed -n 's/^  - \([^ ]*\) \[\(.*\)\]$/\1 \2/p'; }

while read -r name _; do
    case "$SKIP" in *" $name "*) echo "skip $STABLE $name (CLIENT_SKIP)"; continue ;; esac
    run "$STABLE" "" "$name" "$CLI_STABLE" --scenario "$name"
done < <(list_of "$CLI_STABLE")

while read -r name versions; do
    case "$SKIP" in *" $name "*) echo "skip $ALPHA $name (CLIENT_SKIP)"; continue ;; esac
    ran=0
    for req in 2025-11-25 2026-07-28; do
        if grep -q "$req" <<<"$versions"; then
            run "$ALPHA" "$req" "$name" "$CLI_ALPHA" --scenario "$name" --spec-version "$req"
            ran=1
        fi
    done
    if [ "$ran" -eq 0 ]; then
        if [ "$versions" = extension ]; then
            run "$ALPHA" extension "$name" "$CLI_ALPHA" --scenario "$name"
        else
            v="${versions##*,}"
            run "$ALPHA" "$v" "$name" "$CLI_ALPHA" --scenario "$name" --spec-version "$v"
        fi
    fi
done < <(list_of "$CLI_ALPHA")

echo "conformance (client): $passed passed, $failed failed"
[ "$failed" -eq 0 ]
