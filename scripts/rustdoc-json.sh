#!/bin/sh
# rustdoc with RUSTC_BOOTSTRAP, so the stable toolchain writes JSON
# (`--output-format json` is unstable); used by scripts/public_paths.py as RUSTDOC.
RUSTC_BOOTSTRAP=1 exec "${REAL_RUSTDOC:-rustdoc}" "$@"
