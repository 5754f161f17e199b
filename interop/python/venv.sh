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

FASTAPI_VERSION=0.163.2 # PyPI `fastapi`, for the OpenAPI tests and interop
UVICORN_VERSION=0.54.0  # PyPI `uvicorn`

python_fastapi() { # installs (once) FastAPI and uvicorn into the venv (after python_venv)
    local stamp="$VENV/.fastapi-$FASTAPI_VERSION-uvicorn-$UVICORN_VERSION"
    if [ ! -f "$stamp" ]; then
        echo "== fastapi==$FASTAPI_VERSION uvicorn==$UVICORN_VERSION in $VENV"
        timeout 600 "$VENV/bin/python" -m pip install --disable-pip-version-check --no-input \
            --quiet --timeout 60 --retries 3 "fastapi==$FASTAPI_VERSION" "uvicorn==$UVICORN_VERSION"
        touch "$stamp"
    fi
}
