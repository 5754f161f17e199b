#!/usr/bin/env bash
# Installs what the `mcp` command line's tests (mcp-cli/tests/interop.rs) drive besides our
# own examples: the official Python SDK in the shared venv (for interop/client/python_server.py),
# FastAPI and uvicorn in the same venv (for the OpenAPI tests' loopback API,
# tests/tests/data/openapi/fastapi_app.py) and the TypeScript reference server `@modelcontextprotocol/server-everything`, at the versions
# the other interop scripts pin. Run from anywhere; CI (.ci/run) runs it before the tests and
# sets MCP_CLI_INTEROP=require so a missing install fails them instead of skipping.
#
# Env: PYTHON, INTEROP_VENV (default target/interop-venv), INTEROP_NPM_DIR (default
#      target/interop-everything), as the other interop scripts.
set -euo pipefail
cd "$(dirname "$0")/../.."
. interop/lib.sh
. interop/python/venv.sh
python_venv "mcp CLI tests"

python_fastapi # tests/tests/openapi.rs, mcp-cli/tests/gateway_openapi.rs

EVERYTHING_VERSION=2026.8.31 # npm @modelcontextprotocol/server-everything (as interop/client/run_ts_everything.sh)
DIR="$(interop_abs "${INTEROP_NPM_DIR:-target/interop-everything}")"
echo "== mcp CLI tests: server-everything@$EVERYTHING_VERSION in $DIR"
interop_npm_install "$DIR" @modelcontextprotocol/server-everything "$EVERYTHING_VERSION"
