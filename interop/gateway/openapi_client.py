#!/usr/bin/env python3
"""Interop: the official Python MCP SDK client (PyPI `mcp`, the interop venv) calls the
FastAPI-backed tools of an `openapi` upstream through `mcp gateway` over Streamable HTTP,
in both eras (2025-11-25 through `initialize`, 2026-07-28 through `server/discover`).
Run by mcp-cli/tests/gateway_openapi.rs against tests/tests/data/openapi/fastapi_app.py.

Usage: openapi_client.py GATEWAY_URL PREFIX

Checked in each era: the protocol version negotiated; `PREFIX_get_pet` listed; a call
for pet 1 answered by the API (`Rex`, as structured content); a call for pet 99 answered
with `isError` and the API's 404.

Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import anyio
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

URL, PREFIX = sys.argv[1], sys.argv[2]
LEGACY, MODERN = "2025-11-25", "2026-07-28"
TEST_TIMEOUT_S = 30.0


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def texts(result: Any) -> list[str]:
    return [getattr(b, "text", "") or "" for b in result.content]


async def run(mode: str, want: str) -> None:
    async with Client(streamable_http_client(URL), mode=mode, read_timeout_seconds=20) as client:
        check(client.protocol_version == want, f"negotiated {client.protocol_version}, want {want}")
        tools = {t.name for t in (await client.list_tools()).tools}
        tool = f"{PREFIX}_get_pet"
        check(tool in tools, f"{tool} missing from {sorted(tools)}")
        r = await client.call_tool(tool, {"pet_id": 1})
        check(not r.is_error, f"{tool}(1) isError: {r}")
        structured = r.structured_content or {}
        check(structured.get("name") == "Rex", f"{tool}(1): {r}")
        r = await client.call_tool(tool, {"pet_id": 99})
        check(r.is_error is True, f"{tool}(99) is_error={r.is_error}: {r}")
        check(any("404" in t and "no pet 99" in t for t in texts(r)), f"{tool}(99): {r}")


async def main() -> int:
    passed = failed = 0
    for name, mode, want in (("legacy_2025_11_25", "legacy", LEGACY), ("auto_2026_07_28", "auto", MODERN)):
        try:
            with anyio.fail_after(TEST_TIMEOUT_S):
                await run(mode, want)
            print(f"PASS {name}")
            passed += 1
        except Exception:
            print(f"FAIL {name}")
            traceback.print_exc()
            failed += 1
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
