# The pinned official Python SDK in a venv, for the Python interop scripts (sourced after
# interop/lib.sh, from the repository root). Sets MCP_VERSION, PYTHON and VENV.
#
# Env: PYTHON (interpreter, default python3.11 if present else python3),
#      INTEROP_VENV (default target/interop-venv).

MCP_VERSION=2.3.0        # PyPI `mcp`; pulls mcp-types==2.3.0
PYTHON="${PYTHON:-$(command -v python3.11 || command -v python3)}"
VENV="${INTEROP_VENV:-target/interop-venv}"

python_venv() { # label: installs (once) and prints what is installed
    echo "== $1: venv $VENV ($("$PYTHON" --version 2>&1), mcp==$MCP_VERSION)"
    interop_venv "$VENV" "$PYTHON" "mcp==$MCP_VERSION"
    "$VENV/bin/python" -c 'import importlib.metadata as m; print(*(f"{p} {m.version(p)}" for p in ("mcp", "mcp-types", "httpx2")))'
}
