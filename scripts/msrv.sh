#!/usr/bin/env bash
# The minimum supported Rust version (`rust-version` in Cargo.toml, for every crate): what can
# be checked with the toolchain at hand, and the MSRV build itself where that toolchain is.
#
#   1. Every package of the resolved graph (all features, dev-dependencies included) declares
#      a `rust-version` no newer than ours. Resolver 3 picks such versions; this catches a
#      lockfile updated without it.
#   2. The standard library: clippy's `incompatible_msrv` lint refuses APIs stabilized after
#      our MSRV (.ci/run's clippy run denies it).
#   3. The MSRV build: `cargo check --workspace --all-features --all-targets` with the active
#      toolchain when it is that version, else with rustup's of that version (a
#      machine with neither says so and skips it; with MSRV_REQUIRE_TOOLCHAIN=1 that is a
#      failure). CI's machine has it: .ci/run sets MSRV_REQUIRE_TOOLCHAIN=1.
set -euo pipefail
cd "$(dirname "$0")/.."
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml | head -n1)
[ -n "$msrv" ] || { echo "msrv: no rust-version in Cargo.toml" >&2; exit 1; }
echo "msrv: $msrv"

timeout 600 cargo metadata --format-version 1 --all-features --locked | python3 -c '
import json, sys
msrv = sys.argv[1]
def v(s):
    parts = [int(x) for x in s.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))
m = json.load(sys.stdin)
used = {n["id"] for n in m["resolve"]["nodes"]}
newer = sorted(" ".join((p["name"], p["version"], "needs", p["rust_version"]))
               for p in m["packages"]
               if p["id"] in used and p.get("rust_version") and v(p["rust_version"]) > v(msrv))
for line in newer:
    print("msrv: " + line, file=sys.stderr)
print(f"msrv: {len(used)} packages resolved, {len(newer)} need a newer Rust than {msrv}")
sys.exit(1 if newer else 0)
' "$msrv"

# The toolchain that is the MSRV: the active one if it is it, else rustup's of that version.
toolchain=$(rustup toolchain list 2>/dev/null | grep -o "^$msrv[.0-9]*-[^ ]*" | head -n1 || true)
active=$(rustc --version | sed -n 's/^rustc \([0-9]*\.[0-9]*\).*/\1/p')
if [ "$active" = "$msrv" ]; then
    # Checked with the toolchain the rest of CI uses, so its dependencies are checked already.
    echo "msrv: the active toolchain is $msrv: cargo check --workspace --all-features --all-targets"
    timeout 3600 cargo check --workspace --all-features --all-targets
elif [ -n "$toolchain" ]; then
    echo "msrv: cargo +$toolchain check --workspace --all-features --all-targets"
    timeout 3600 cargo "+$toolchain" check --workspace --all-features --all-targets
elif [ "${MSRV_REQUIRE_TOOLCHAIN:-0}" = 1 ]; then
    echo "msrv: toolchain $msrv not installed" >&2
    exit 1
else
    echo "msrv: toolchain $msrv not installed here (rustup toolchain install $msrv): the MSRV build is skipped; the checks above ran"
fi
