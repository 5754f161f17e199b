#!/usr/bin/env python3
"""Interop: the official Python MCP SDK client (PyPI `mcp`, pinned in run.sh) drives the
bookshop example over stdio in both protocol eras.

Usage: test_bookshop.py [PATH_TO_BOOKSHOP_BINARY]   (default: target/debug/examples/bookshop)

Each test spawns `bookshop --stdio` through wirelog.py, which records every JSON-RPC line,
so a test can check what really went over the wire, not only what the client reports:

- legacy_2025_11_25: `mode="legacy"`: initialize at 2025-11-25, tools/list, tools/call.
- modern_discover_2026_07_28: `mode="auto"` (the SDK's default): the client probes
  `server/discover` at 2026-07-28 and adopts it when the server answers with a modern version;
  it silently falls back to `initialize` otherwise, so the test also asserts that no
  `initialize` was sent and that every request carried the 2026-07-28 `_meta` envelope.
- modern_pinned_2026_07_28: `mode="2026-07-28"`: the version is adopted without a probe.

Every server result on the wire is also validated against the SDK's strict per-revision
schema models (mcp_types._v2025_11_25 / _v2026_07_28), which, unlike the client's lenient
models, reject a missing required field such as `resultType`, `ttlMs` or `cacheScope`.

Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
import traceback
from pathlib import Path
from typing import Any, Awaitable, Callable

import anyio
import mcp_types._v2025_11_25 as strict_2025
import mcp_types._v2026_07_28 as strict_2026
from mcp import Client, StdioServerParameters
from mcp_types import TextContent

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent
LEGACY = "2025-11-25"
MODERN = "2026-07-28"
PV_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
TEST_TIMEOUT_S = 30.0
QUERY = "dune"
EXPECTED_TEXT = f"Found 3 books matching '{QUERY}'."

BINARY = Path(sys.argv[1] if len(sys.argv) > 1 else REPO / "target/debug/examples/bookshop").resolve()

# The strict result model for each request method, per revision.
STRICT_RESULTS: dict[str, dict[str, Any]] = {
    LEGACY: {
        "initialize": strict_2025.InitializeResult,
        "tools/list": strict_2025.ListToolsResult,
        "tools/call": strict_2025.CallToolResult,
    },
    MODERN: {
        "server/discover": strict_2026.DiscoverResult,
        "tools/list": strict_2026.ListToolsResult,
        "tools/call": strict_2026.CallToolResult,
    },
}


class Wire:
    """The lines recorded by wirelog.py for one server process."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.sent: list[dict[str, Any]] = []  # client -> server
        self.received: list[dict[str, Any]] = []  # server -> client

    def load(self) -> None:
        self.sent.clear()
        self.received.clear()
        if not self.path.exists():
            return
        for line in self.path.read_text(encoding="utf-8").splitlines():
            direction, _, body = line.partition(" ")
            if not body.strip():
                continue
            msg = json.loads(body)
            (self.sent if direction == "C>S" else self.received).append(msg)

    def requests(self) -> list[dict[str, Any]]:
        return [m for m in self.sent if "method" in m and "id" in m]

    def methods(self) -> list[str]:
        return [m["method"] for m in self.requests()]

    def response_to(self, request: dict[str, Any]) -> dict[str, Any]:
        for m in self.received:
            if m.get("id") == request["id"] and ("result" in m or "error" in m):
                return m
        raise AssertionError(f"no response on the wire to request {request['id']} ({request['method']})")

    def dump(self) -> str:
        parts = [f"--- wire log {self.path}:"]
        if self.path.exists():
            parts.append(self.path.read_text(encoding="utf-8").rstrip())
        err = Path(str(self.path) + ".stderr")
        if err.exists() and err.stat().st_size:
            parts.append(f"--- server stderr {err}:")
            parts.append(err.read_bytes().decode("utf-8", "replace").rstrip())
        return "\n".join(parts)


def server_params(wire: Wire) -> StdioServerParameters:
    return StdioServerParameters(
        command=sys.executable,
        args=[str(HERE / "wirelog.py"), str(wire.path), "--", str(BINARY), "--stdio"],
        env={"RUST_LOG": "info"},
    )


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def check_strict_wire(wire: Wire, version: str) -> None:
    """Every response to a request is a success and validates against the strict schema."""
    models = STRICT_RESULTS[version]
    for req in wire.requests():
        resp = wire.response_to(req)
        check("error" not in resp, f"{req['method']} answered with an error: {json.dumps(resp)}")
        model = models.get(req["method"])
        if model is None:
            continue
        try:
            model.model_validate(resp["result"])
        except Exception as e:  # pydantic.ValidationError
            raise AssertionError(
                f"{req['method']} result does not match the strict {version} schema "
                f"({model.__module__}.{model.__name__}): {e}\nresult: {json.dumps(resp['result'])}"
            ) from e


async def list_and_call(client: Client) -> None:
    tools = await client.list_tools()
    names = [t.name for t in tools.tools]
    check(names == ["search_books"], f"tools/list returned {names}, want ['search_books']")
    tool = tools.tools[0]
    check(tool.input_schema.get("required") == ["query"], f"unexpected inputSchema: {tool.input_schema}")

    result = await client.call_tool("search_books", {"query": QUERY})
    check(not result.is_error, f"search_books returned isError: {result}")
    check(len(result.content) == 1, f"want one content block, got {result.content}")
    block = result.content[0]
    check(isinstance(block, TextContent), f"want a text block, got {block!r}")
    check(block.text == EXPECTED_TEXT, f"text is {block.text!r}, want {EXPECTED_TEXT!r}")


async def test_legacy(wire: Wire) -> None:
    async with Client(server_params(wire), mode="legacy", read_timeout_seconds=10) as client:
        check(client.protocol_version == LEGACY, f"negotiated {client.protocol_version!r}, want {LEGACY!r}")
        check(client.session.initialize_result is not None, "no InitializeResult recorded")
        check(client.session.discover_result is None, "a DiscoverResult was recorded on the legacy path")
        info = client.server_info
        check(info is not None and info.name == "bookshop", f"serverInfo is {info!r}")
        check(
            client.server_capabilities.tools is not None,
            f"tools capability missing: {client.server_capabilities}",
        )
        await list_and_call(client)

    wire.load()
    methods = wire.methods()
    check(methods == ["initialize", "tools/list", "tools/call"], f"requests on the wire: {methods}")
    init = wire.requests()[0]
    check(init["params"]["protocolVersion"] == LEGACY, f"initialize offered {init['params']['protocolVersion']}")
    init_resp = wire.response_to(init)
    check(init_resp["result"]["protocolVersion"] == LEGACY, f"initialize answered {init_resp}")
    notes = [m["method"] for m in wire.sent if "method" in m and "id" not in m]
    check("notifications/initialized" in notes, f"no notifications/initialized sent: {notes}")
    check_strict_wire(wire, LEGACY)


def check_modern_envelopes(wire: Wire) -> None:
    for req in wire.requests():
        meta = (req.get("params") or {}).get("_meta") or {}
        check(meta.get(PV_KEY) == MODERN, f"{req['method']} carried _meta {meta}, want {PV_KEY}={MODERN}")
        resp = wire.response_to(req)
        result = resp.get("result", {})
        check(result.get("resultType") == "complete", f"{req['method']} result lacks resultType: {resp}")
        stamp = (result.get("_meta") or {}).get(SERVER_INFO_KEY)
        check(stamp is not None and stamp.get("name") == "bookshop", f"{req['method']} lacks serverInfo stamp")


async def test_modern_discover(wire: Wire) -> None:
    async with Client(server_params(wire), mode="auto", read_timeout_seconds=10) as client:
        check(client.protocol_version == MODERN, f"negotiated {client.protocol_version!r}, want {MODERN!r}")
        check(client.session.discover_result is not None, "no DiscoverResult: the client fell back to initialize")
        check(client.session.initialize_result is None, "the client ran the initialize handshake")
        dr = client.session.discover_result
        check(MODERN in dr.supported_versions, f"supportedVersions {dr.supported_versions}")
        info = client.server_info
        check(info is not None and info.name == "bookshop", f"serverInfo stamp is {info!r}")
        check(client.server_capabilities.tools is not None, f"tools capability missing: {dr.capabilities}")
        check(
            client.session.instructions == "A small bookshop: search the catalogue with search_books.",
            f"instructions {client.session.instructions!r}",
        )
        await list_and_call(client)

    wire.load()
    methods = wire.methods()
    check(methods == ["server/discover", "tools/list", "tools/call"], f"requests on the wire: {methods}")
    check("initialize" not in methods, "initialize went over the wire")
    check_modern_envelopes(wire)
    check_strict_wire(wire, MODERN)


async def test_modern_pinned(wire: Wire) -> None:
    async with Client(server_params(wire), mode=MODERN, read_timeout_seconds=10) as client:
        check(client.protocol_version == MODERN, f"negotiated {client.protocol_version!r}, want {MODERN!r}")
        await list_and_call(client)

    wire.load()
    methods = wire.methods()
    check(methods == ["tools/list", "tools/call"], f"requests on the wire: {methods}")
    check_modern_envelopes(wire)
    check_strict_wire(wire, MODERN)


TESTS: list[tuple[str, Callable[[Wire], Awaitable[None]]]] = [
    ("legacy_2025_11_25", test_legacy),
    ("modern_discover_2026_07_28", test_modern_discover),
    ("modern_pinned_2026_07_28", test_modern_pinned),
]


def leaf_errors(e: BaseException) -> list[BaseException]:
    """The innermost exceptions of a (possibly nested) exception group."""
    if isinstance(e, BaseExceptionGroup):
        return [leaf for sub in e.exceptions for leaf in leaf_errors(sub)]
    return [e]


async def run_one(fn: Callable[[Wire], Awaitable[None]], wire: Wire) -> None:
    with anyio.fail_after(TEST_TIMEOUT_S):
        await fn(wire)


def main() -> int:
    import mcp_types.version

    print(f"python mcp client against {BINARY}")
    print(f"mcp-types MODERN_PROTOCOL_VERSIONS={mcp_types.version.MODERN_PROTOCOL_VERSIONS}")
    if not os.access(BINARY, os.X_OK):
        print(f"FAIL: {BINARY} is not an executable (build it with `cargo build --example bookshop`)")
        print("0 passed, 1 failed")
        return 1
    passed = failed = 0
    with tempfile.TemporaryDirectory(prefix="mcp-interop-") as tmp:
        for name, fn in TESTS:
            wire = Wire(Path(tmp) / f"{name}.wire")
            try:
                anyio.run(run_one, fn, wire)
            except BaseException as e:  # noqa: BLE001 - report everything, including timeouts
                if isinstance(e, KeyboardInterrupt):
                    raise
                failed += 1
                why = "; ".join(f"{type(x).__name__}: {x}" for x in leaf_errors(e))
                print(f"FAIL {name}: {why}")
                traceback.print_exception(e, file=sys.stdout)
                print(wire.dump())
            else:
                passed += 1
                print(f"ok   {name}")
                if os.environ.get("INTEROP_VERBOSE"):
                    print(wire.dump())
    print(f"{passed} passed, {failed} failed")
    return 0 if failed == 0 and passed == len(TESTS) else 1


if __name__ == "__main__":
    sys.exit(main())
