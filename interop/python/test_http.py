#!/usr/bin/env python3
"""Interop: the official Python MCP SDK client (PyPI `mcp`, pinned in run_http.sh) drives
tests/examples/conformance_server.rs over Streamable HTTP (`/mcp`) in both protocol eras.

Usage: test_http.py URL   (e.g. http://127.0.0.1:3001/mcp)

The client's httpx2 transport is wrapped so that every HTTP exchange (method, status, the MCP
headers, both bodies — SSE response bodies are parsed into their JSON-RPC messages) is recorded;
the tests check what really went over the wire, not only what the client reports:

- legacy_2025_11_25: `mode="legacy"`: initialize at 2025-11-25 (answered 2025-11-25, an
  `Mcp-Session-Id` given and carried afterwards with `MCP-Protocol-Version: 2025-11-25`),
  tools/list, tools/call (test_simple_text, test_tool_with_progress with its progress
  notifications, test_error_handling), DELETE of the session on exit.
- modern_discover_2026_07_28: `mode="auto"` (the SDK's default): `server/discover` is probed
  at 2026-07-28 and adopted (no `initialize`, no session id, every request carrying the
  2026-07-28 `_meta` envelope and header), then the same calls.
- modern_pinned_2026_07_28: `mode="2026-07-28"`: the version is adopted without a probe.
- sse_transport_2025_11_25 (beyond Streamable HTTP): the SDK's `sse_client`, the 2024-11-05
  HTTP+SSE transport served beside `/mcp` (GET `/sse`, whose `endpoint` event names
  `POST /messages?sessionId=…`, each answered 202, answers arriving as `message` events), with
  `mode="legacy"` (the SDK offers 2025-11-25 over it), then the same calls.

Every result on the wire is also validated against the SDK's strict per-revision schema models
(mcp_types._v2025_11_25 / _v2026_07_28).

Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.
"""

from __future__ import annotations

import json
import os
import sys
import traceback
from dataclasses import dataclass, field
from typing import Any, AsyncIterator, Awaitable, Callable

import anyio
import httpx2
import mcp_types._v2025_11_25 as strict_2025
import mcp_types._v2026_07_28 as strict_2026
from mcp import Client
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client
from mcp_types import TextContent

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
PV_KEY = "io.modelcontextprotocol/protocolVersion"
SERVER_INFO_KEY = "io.modelcontextprotocol/serverInfo"
SERVER_NAME = "mcp-rust-conformance"
TEST_TIMEOUT_S = 30.0
SIMPLE_TEXT = "This is a simple text response for testing."
ERROR_TEXT = "This tool intentionally returns an error for testing"
EXPECTED_TOOLS = {"test_simple_text", "test_error_handling", "test_tool_with_progress"}

URL = sys.argv[1] if len(sys.argv) > 1 else "http://127.0.0.1:3001/mcp"
SSE_URL = URL.rsplit("/", 1)[0] + "/sse"  # the 2024-11-05 transport, beside /mcp

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


@dataclass
class Exchange:
    method: str
    url: str
    req_headers: dict[str, str]
    req_body: bytes
    status: int | None = None
    resp_headers: dict[str, str] = field(default_factory=dict)
    resp_body: bytearray = field(default_factory=bytearray)
    error: str | None = None

    def messages_sent(self) -> list[dict[str, Any]]:
        if not self.req_body:
            return []
        v = json.loads(self.req_body)
        return v if isinstance(v, list) else [v]

    def messages_received(self) -> list[dict[str, Any]]:
        body = bytes(self.resp_body).decode("utf-8", "replace")
        ctype = self.resp_headers.get("content-type", "")
        if not body.strip():
            return []
        if ctype.startswith("text/event-stream"):
            out = []
            for ev in body.replace("\r\n", "\n").split("\n\n"):
                data = "\n".join(l[5:].lstrip(" ") for l in ev.split("\n") if l.startswith("data:"))
                if data.strip():
                    try:
                        out.append(json.loads(data))
                    except json.JSONDecodeError:
                        pass  # e.g. a priming event with an empty or non-JSON payload
            return out
        if ctype.startswith("application/json"):
            v = json.loads(body)
            return v if isinstance(v, list) else [v]
        return []

    def describe(self) -> str:
        def hdrs(h: dict[str, str]) -> str:
            keep = ("accept", "content-type", "mcp-protocol-version", "mcp-session-id", "mcp-method", "mcp-name")
            return "; ".join(f"{k}: {v}" for k, v in h.items() if k in keep)

        lines = [f"> {self.method} {self.url} [{hdrs(self.req_headers)}]"]
        if self.req_body:
            lines.append(f">   {self.req_body.decode('utf-8', 'replace')}")
        if self.error:
            lines.append(f"< error: {self.error}")
        else:
            lines.append(f"< {self.status} [{hdrs(self.resp_headers)}]")
            body = bytes(self.resp_body).decode("utf-8", "replace").rstrip()
            if body:
                lines.extend(f"<   {l}" for l in body.split("\n"))
        return "\n".join(lines)


class _Tee(httpx2.AsyncByteStream):
    def __init__(self, inner: Any, sink: bytearray) -> None:
        self.inner = inner
        self.sink = sink

    async def __aiter__(self) -> AsyncIterator[bytes]:
        async for chunk in self.inner:
            self.sink.extend(chunk)
            yield chunk

    async def aclose(self) -> None:
        await self.inner.aclose()


class Wire(httpx2.AsyncBaseTransport):
    """An httpx2 transport that records every exchange."""

    def __init__(self) -> None:
        self.inner = httpx2.AsyncHTTPTransport()
        self.exchanges: list[Exchange] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = await request.aread()
        ex = Exchange(
            request.method,
            str(request.url),
            {k.lower(): v for k, v in request.headers.items()},
            body,
        )
        self.exchanges.append(ex)
        try:
            resp = await self.inner.handle_async_request(request)
        except BaseException as e:
            ex.error = f"{type(e).__name__}: {e}"
            raise
        ex.status = resp.status_code
        ex.resp_headers = {k.lower(): v for k, v in resp.headers.items()}
        return httpx2.Response(
            resp.status_code,
            headers=resp.headers,
            stream=_Tee(resp.stream, ex.resp_body),
            extensions=resp.extensions,
        )

    async def aclose(self) -> None:
        await self.inner.aclose()

    # -- views
    def sent(self) -> list[dict[str, Any]]:
        return [m for ex in self.exchanges for m in ex.messages_sent()]

    def received(self) -> list[dict[str, Any]]:
        return [m for ex in self.exchanges for m in ex.messages_received()]

    def requests(self) -> list[dict[str, Any]]:
        return [m for m in self.sent() if "method" in m and "id" in m]

    def methods(self) -> list[str]:
        return [m["method"] for m in self.requests()]

    def exchange_of(self, request: dict[str, Any]) -> Exchange:
        for ex in self.exchanges:
            if any(m.get("id") == request["id"] and m.get("method") == request["method"] for m in ex.messages_sent()):
                return ex
        raise AssertionError(f"no HTTP exchange carried request {request['id']} ({request['method']})")

    def response_to(self, request: dict[str, Any]) -> dict[str, Any]:
        for m in self.received():
            if m.get("id") == request["id"] and ("result" in m or "error" in m):
                return m
        raise AssertionError(f"no response on the wire to request {request['id']} ({request['method']})")

    def dump(self) -> str:
        return "\n".join(["--- wire log:", *(ex.describe() for ex in self.exchanges)])


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def check_strict_wire(wire: Wire, version: str) -> None:
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


def connect(wire: Wire, mode: str) -> Client:
    http = httpx2.AsyncClient(transport=wire, timeout=httpx2.Timeout(10.0, read=30.0))
    return Client(streamable_http_client(URL, http_client=http), mode=mode, read_timeout_seconds=10)


async def list_and_call(client: Client) -> None:
    tools = await client.list_tools()
    names = {t.name for t in tools.tools}
    check(EXPECTED_TOOLS <= names, f"tools/list returned {sorted(names)}, missing {sorted(EXPECTED_TOOLS - names)}")
    simple = next(t for t in tools.tools if t.name == "test_simple_text")
    check(simple.input_schema.get("type") == "object", f"unexpected inputSchema: {simple.input_schema}")

    result = await client.call_tool("test_simple_text", {})
    check(not result.is_error, f"test_simple_text returned isError: {result}")
    check(len(result.content) == 1, f"want one content block, got {result.content}")
    block = result.content[0]
    check(isinstance(block, TextContent), f"want a text block, got {block!r}")
    check(block.text == SIMPLE_TEXT, f"text is {block.text!r}, want {SIMPLE_TEXT!r}")

    progress: list[tuple[float, float | None, str | None]] = []

    async def on_progress(p: float, total: float | None, message: str | None) -> None:
        progress.append((p, total, message))

    result = await client.call_tool("test_tool_with_progress", {}, progress_callback=on_progress)
    check(not result.is_error, f"test_tool_with_progress returned isError: {result}")
    check(
        [getattr(b, "text", None) for b in result.content] == ["Progress complete"],
        f"test_tool_with_progress content {result.content}",
    )
    check(
        [p for p, _, _ in progress] == [0.0, 50.0, 100.0] and all(t == 100.0 for _, t, _ in progress),
        f"progress notifications {progress}, want 0, 50, 100 of 100",
    )

    result = await client.call_tool("test_error_handling", {})
    check(result.is_error is True, f"test_error_handling is_error={result.is_error}: {result}")
    check(
        [getattr(b, "text", None) for b in result.content] == [ERROR_TEXT],
        f"test_error_handling content {result.content}",
    )


CALLS = ["tools/list", "tools/call", "tools/call", "tools/call"]


async def test_legacy(wire: Wire) -> None:
    async with connect(wire, "legacy") as client:
        check(client.protocol_version == LEGACY, f"negotiated {client.protocol_version!r}, want {LEGACY!r}")
        check(client.session.initialize_result is not None, "no InitializeResult recorded")
        check(client.session.discover_result is None, "a DiscoverResult was recorded on the legacy path")
        info = client.server_info
        check(info is not None and info.name == SERVER_NAME, f"serverInfo is {info!r}")
        check(client.server_capabilities.tools is not None, f"tools capability missing: {client.server_capabilities}")
        await list_and_call(client)

    methods = wire.methods()
    check(methods == ["initialize", *CALLS], f"requests on the wire: {methods}")
    init = wire.requests()[0]
    check(init["params"]["protocolVersion"] == LEGACY, f"initialize offered {init['params']['protocolVersion']}")
    init_resp = wire.response_to(init)
    check(init_resp["result"]["protocolVersion"] == LEGACY, f"initialize answered {init_resp}")
    notes = [m["method"] for m in wire.sent() if "method" in m and "id" not in m]
    check("notifications/initialized" in notes, f"no notifications/initialized sent: {notes}")

    init_ex = wire.exchange_of(init)
    check(init_ex.status == 200, f"initialize answered HTTP {init_ex.status}")
    sid = init_ex.resp_headers.get("mcp-session-id")
    check(bool(sid), f"initialize response carried no Mcp-Session-Id: {init_ex.resp_headers}")
    for ex in wire.exchanges:
        if ex is init_ex:
            continue
        check(ex.req_headers.get("mcp-session-id") == sid, f"{ex.method} carried session {ex.req_headers.get('mcp-session-id')!r}, want {sid!r}")
        check(
            ex.req_headers.get("mcp-protocol-version") == LEGACY,
            f"{ex.method} carried MCP-Protocol-Version {ex.req_headers.get('mcp-protocol-version')!r}",
        )
        if ex.method == "POST":
            check(ex.status in (200, 202), f"POST answered {ex.status}: {ex.describe()}")
    dels = [ex for ex in wire.exchanges if ex.method == "DELETE"]
    check(len(dels) == 1 and dels[0].status in (200, 204), f"DELETE of the session: {[d.status for d in dels]}")
    check_strict_wire(wire, LEGACY)


def check_modern_wire(wire: Wire) -> None:
    for req in wire.requests():
        meta = (req.get("params") or {}).get("_meta") or {}
        check(meta.get(PV_KEY) == MODERN, f"{req['method']} carried _meta {meta}, want {PV_KEY}={MODERN}")
        resp = wire.response_to(req)
        result = resp.get("result", {})
        check(result.get("resultType") == "complete", f"{req['method']} result lacks resultType: {resp}")
        stamp = (result.get("_meta") or {}).get(SERVER_INFO_KEY)
        check(stamp is not None and stamp.get("name") == SERVER_NAME, f"{req['method']} lacks serverInfo stamp: {resp}")
    for ex in wire.exchanges:
        check(ex.method == "POST", f"a {ex.method} went over the wire in the stateless era: {ex.describe()}")
        check(ex.status == 200, f"POST answered {ex.status}: {ex.describe()}")
        check(
            ex.req_headers.get("mcp-protocol-version") == MODERN,
            f"POST carried MCP-Protocol-Version {ex.req_headers.get('mcp-protocol-version')!r}",
        )
        check("mcp-session-id" not in ex.resp_headers, f"the server handed out a session id: {ex.resp_headers}")
    check_strict_wire(wire, MODERN)


async def test_modern_discover(wire: Wire) -> None:
    async with connect(wire, "auto") as client:
        check(client.protocol_version == MODERN, f"negotiated {client.protocol_version!r}, want {MODERN!r}")
        check(client.session.discover_result is not None, "no DiscoverResult: the client fell back to initialize")
        check(client.session.initialize_result is None, "the client ran the initialize handshake")
        dr = client.session.discover_result
        check(MODERN in dr.supported_versions, f"supportedVersions {dr.supported_versions}")
        info = client.server_info
        check(info is not None and info.name == SERVER_NAME, f"serverInfo stamp is {info!r}")
        check(client.server_capabilities.tools is not None, f"tools capability missing: {dr.capabilities}")
        await list_and_call(client)

    methods = wire.methods()
    check(methods == ["server/discover", *CALLS], f"requests on the wire: {methods}")
    check_modern_wire(wire)


async def test_modern_pinned(wire: Wire) -> None:
    async with connect(wire, MODERN) as client:
        check(client.protocol_version == MODERN, f"negotiated {client.protocol_version!r}, want {MODERN!r}")
        await list_and_call(client)

    methods = wire.methods()
    check(methods == CALLS, f"requests on the wire: {methods}")
    check_modern_wire(wire)


async def test_sse_transport(wire: Wire) -> None:
    def factory(
        headers: dict[str, str] | None = None,
        timeout: httpx2.Timeout | None = None,
        auth: httpx2.Auth | None = None,
    ) -> httpx2.AsyncClient:
        return httpx2.AsyncClient(transport=wire, headers=headers, timeout=timeout, auth=auth)

    transport = sse_client(SSE_URL, timeout=10, sse_read_timeout=30, httpx_client_factory=factory)
    async with Client(transport, mode="legacy", read_timeout_seconds=10) as client:
        check(client.protocol_version == LEGACY, f"negotiated {client.protocol_version!r}, want {LEGACY!r}")
        info = client.server_info
        check(info is not None and info.name == SERVER_NAME, f"serverInfo is {info!r}")
        await list_and_call(client)

    methods = wire.methods()
    check(methods == ["initialize", *CALLS], f"requests on the wire: {methods}")
    init = wire.requests()[0]
    check(init["params"]["protocolVersion"] == LEGACY, f"initialize offered {init['params']['protocolVersion']}")
    check(wire.response_to(init)["result"]["protocolVersion"] == LEGACY, f"initialize answered {wire.response_to(init)}")
    gets = [ex for ex in wire.exchanges if ex.method == "GET"]
    check(len(gets) == 1, f"{len(gets)} GET streams")
    get = gets[0]
    check(get.url == SSE_URL and get.status == 200, f"GET {get.url} answered {get.status}")
    check(get.resp_headers.get("content-type", "").startswith("text/event-stream"), f"GET content-type {get.resp_headers}")
    first = next(
        (ev for ev in bytes(get.resp_body).decode().replace("\r\n", "\n").split("\n\n") if not ev.startswith(":")),
        "",
    )
    fields = dict(l.split(": ", 1) for l in first.split("\n") if ": " in l)
    check(
        fields.get("event") == "endpoint" and fields.get("data", "").startswith("/messages?sessionId="),
        f"the stream's first event is not `endpoint`: {first!r}",
    )
    posts = [ex for ex in wire.exchanges if ex.method == "POST"]
    check(len(posts) == 6, f"{len(posts)} POSTs, want 6 (initialize, initialized, 4 requests)")
    for ex in posts:
        check("/messages?sessionId=" in ex.url, f"POST went to {ex.url}")
        check(ex.status == 202, f"POST answered {ex.status}: {ex.describe()}")
    check_strict_wire(wire, LEGACY)


TESTS: list[tuple[str, Callable[[Wire], Awaitable[None]]]] = [
    ("legacy_2025_11_25", test_legacy),
    ("modern_discover_2026_07_28", test_modern_discover),
    ("modern_pinned_2026_07_28", test_modern_pinned),
    ("sse_transport_2025_11_25", test_sse_transport),
]


def leaf_errors(e: BaseException) -> list[BaseException]:
    if isinstance(e, BaseExceptionGroup):
        return [leaf for sub in e.exceptions for leaf in leaf_errors(sub)]
    return [e]


async def run_one(fn: Callable[[Wire], Awaitable[None]], wire: Wire) -> None:
    with anyio.fail_after(TEST_TIMEOUT_S):
        await fn(wire)


def main() -> int:
    import mcp_types.version

    print(f"python mcp client over Streamable HTTP against {URL}")
    print(f"mcp-types MODERN_PROTOCOL_VERSIONS={mcp_types.version.MODERN_PROTOCOL_VERSIONS}")
    passed = failed = 0
    for name, fn in TESTS:
        wire = Wire()
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
