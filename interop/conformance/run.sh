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
# Exits non-zero when any scenario fails.
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
run() { # label cli args...
    local label="$1" cli="$2"
    shift 2
    local out
    local rc=0
    out="$(timeout 120 node --import "$PRELOAD" "$cli" server --url "$URL" "$@" 2>&1)" || rc=$?
    if [ "$rc" -eq 0 ] && grep -q '^SKIPPED' <<<"$out"; then
        echo "skip $label (not applicable at this revision)"
    elif [ "$rc" -eq 0 ] && grep -Eq 'Passed: [0-9]+/[0-9]+, 0 failed' <<<"$out" \
        && ! grep -q 'FAILURE' <<<"$out"; then
        passed=$((passed + 1))
        echo "ok   $label $(grep -Eo 'Passed: [0-9]+/[0-9]+' <<<"$out" | tail -1)"
    else
        failed=$((failed + 1))
        echo "FAIL $label"
        echo "$out" | grep -E 'FAILURE|WARNING|Passed|rror' | head -40
    fi
}

# Each CLI's own scenario list: a scenario it does not have is not run by it.
list_of() { node --import "$PRELOAD" "$1" list 2>/dev/null | sed -n 's/^  - \([^ ]*\).*/\1/p'; }
STABLE_LIST="$(list_of "$CLI_STABLE")"
ALPHA_LIST="$(list_of "$CLI_ALPHA")"
has() { grep -qx -- "$2" <<<"$1"; }

for s in "${SCENARIOS[@]}"; do
    if has "$STABLE_LIST" "$s"; then run "$STABLE $s" "$CLI_STABLE" --scenario "$s"; fi
done
for req in 2025-11-25 2026-07-28; do
    for s in "${SCENARIOS[@]}"; do
        if has "$ALPHA_LIST" "$s"; then
            run "$ALPHA $s @$req" "$CLI_ALPHA" --scenario "$s" --spec-version "$req"
        else
            echo "FAIL $s: not a scenario of $ALPHA"; failed=$((failed + 1))
        fi
    done
done

# Extension scenarios: once each, at the wire the CLI picks for them.
for s in "${EXT_SCENARIOS[@]}"; do
    if has "$ALPHA_LIST" "$s"; then
        run "$ALPHA $s (extension)" "$CLI_ALPHA" --scenario "$s"
    else
        echo "FAIL $s: not a scenario of $ALPHA"; failed=$((failed + 1))
    fi
done

# The whole suites as they score a server: 0.1.16's active set, and the alpha's requirements
# of each revision (with no expected-failures list). Their totals are printed; a scored
# failure fails the run (the CLI exits non-zero). "Not scored" scenarios (extensions,
# pending) are listed by the CLI and do not change its exit code.
whole() { # label cli args...
    local label="$1" cli="$2" out rc=0
    shift 2
    out="$(timeout 600 node --import "$PRELOAD" "$cli" server --url "$URL" "$@" 2>&1)" || rc=$?
    echo "== $label: $(grep -E '^Total:' <<<"$out" | tail -1)"
    grep -E '^(Not scored|  ✗)' <<<"$out" || true
    if [ "$rc" -ne 0 ]; then
        failed=$((failed + 1))
        echo "FAIL $label (exit $rc)"
        grep -E '^✗' <<<"$out" | head -20 || true
    fi
}
whole "$STABLE active suite" "$CLI_STABLE"
whole "$ALPHA --requirements 2025-11-25" "$CLI_ALPHA" --requirements 2025-11-25
whole "$ALPHA --requirements 2026-07-28" "$CLI_ALPHA" --requirements 2026-07-28

echo "conformance: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
