#!/usr/bin/env python3
"""Interop: the official Python MCP SDK client (PyPI `mcp`, pinned in run_everything.sh)
exercises examples/everything.rs over every transport it shares with us, in both eras.

Usage: test_everything.py BINARY HTTP_URL SSE_URL

Transports x revisions:
- stdio (`BINARY --stdio`): 2025-11-25 (`mode="legacy"`) and 2026-07-28 (`mode="auto"`,
  adopted through `server/discover`).
- Streamable HTTP (HTTP_URL): the same two.
- HTTP+SSE (SSE_URL, the 2024-11-05 transport): `mode="legacy"` (the SDK offers 2025-11-25).

Each run checks: the tool, resource, template and prompt lists; a tool call; a text and a
binary resource read; a prompt with an argument; completion; progress notifications; a
cancelled call (the server counts the cancellations it observed, read back through the
`stats` tool); logging (legacy `logging/setLevel`, modern per-request `logLevel` opt-in);
elicitation and sampling — server-to-client requests on legacy, `input_required` rounds on
2026-07-28 (the SDK answers them through the same callbacks and retries).

Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.
"""

from __future__ import annotations

import base64
import sys
import traceback
from typing import Any, Awaitable, Callable

import anyio
import httpx2
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

LEGACY = "2025-11-25"
MODERN = "2026-07-28"
TEST_TIMEOUT_S = 60.0

BINARY, HTTP_URL, SSE_URL = sys.argv[1], sys.argv[2], sys.argv[3]

TOOLS = {"add", "countdown", "sleep", "stats", "log_demo", "ask_name", "summarize", "weather"}
PROMPTS = {"greet", "describe_logo"}
RESOURCES = {"everything://readme", "everything://logo.png"}
TEMPLATES = {"everything://notes/{id}"}


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def texts(result: Any) -> list[str]:
    return [getattr(b, "text", None) for b in result.content]


class Observed:
    """What the client's callbacks saw."""

    def __init__(self) -> None:
        self.logs: list[tuple[str, Any]] = []
        self.elicitations: list[str] = []
        self.samplings: list[str] = []


def make_client(transport: Any, mode: str, seen: Observed) -> Client:
    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen.logs.append((params.level, params.data))

    async def on_elicit(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        seen.elicitations.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def on_sample(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        first = params.messages[0].content
        seen.samplings.append(getattr(first, "text", ""))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="a short summary"),
            model="interop-model",
            stop_reason="endTurn",
        )

    return Client(
        transport,
        mode=mode,
        read_timeout_seconds=20,
        logging_callback=on_log,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        log_level="debug" if mode != "legacy" else None,
        cache=None,
    )


async def exercise(client: Client, seen: Observed, era: str) -> None:
    # Lists.
    tools = {t.name for t in (await client.list_tools()).tools}
    check(TOOLS <= tools, f"tools/list: {sorted(tools)}, missing {sorted(TOOLS - tools)}")
    prompts = {p.name for p in (await client.list_prompts()).prompts}
    check(PROMPTS <= prompts, f"prompts/list: {sorted(prompts)}")
    resources = {r.uri for r in (await client.list_resources()).resources}
    check(RESOURCES <= resources, f"resources/list: {sorted(resources)}")
    templates = {t.uri_template for t in (await client.list_resource_templates()).resource_templates}
    check(TEMPLATES <= templates, f"resources/templates/list: {sorted(templates)}")

    # A tool call, with structured output.
    r = await client.call_tool("add", {"a": 2, "b": 40})
    check(not r.is_error and texts(r) == ["42"], f"add: {r}")
    r = await client.call_tool("weather", {"city": "Lisbon"})
    check(not r.is_error and (r.structured_content or {}).get("city") == "Lisbon", f"weather: {r}")

    # Resources: text, binary, template.
    rr = await client.read_resource("everything://readme")
    check(len(rr.contents) == 1 and "everything" in getattr(rr.contents[0], "text", ""), f"readme: {rr}")
    rr = await client.read_resource("everything://logo.png")
    blob = base64.b64decode(getattr(rr.contents[0], "blob", ""))
    check(blob.startswith(b"\x89PNG"), f"logo.png is not a PNG: {blob[:8]!r}")
    rr = await client.read_resource("everything://notes/7")
    check("note 7" in getattr(rr.contents[0], "text", ""), f"notes/7: {rr}")

    # A prompt with an argument, and completion of that argument.
    pr = await client.get_prompt("greet", {"name": "Grace"})
    text = getattr(pr.messages[0].content, "text", "")
    check("Grace" in text, f"greet: {pr}")
    cr = await client.complete(types.PromptReference(type="ref/prompt", name="greet"), {"name": "name", "value": "Al"})
    values = cr.completion.values
    check(values and all(v.startswith("Al") for v in values), f"completion values {values}")

    # Progress.
    progress: list[float] = []

    async def on_progress(p: float, _total: float | None, _message: str | None) -> None:
        progress.append(p)

    r = await client.call_tool("countdown", {"steps": 3, "delay_ms": 5}, progress_callback=on_progress)
    check(not r.is_error and progress == [1.0, 2.0, 3.0], f"countdown: {r}, progress {progress}")

    # Cancellation: a call abandoned mid-way is seen by the server as cancelled.
    before = (await client.call_tool("stats", {})).structured_content["cancelled"]
    with anyio.move_on_after(0.5):
        await client.call_tool("sleep", {"ms": 20_000})
        raise AssertionError("sleep returned before it was cancelled")
    after = before
    with anyio.fail_after(10):
        while after == before:
            await anyio.sleep(0.05)
            after = (await client.call_tool("stats", {})).structured_content["cancelled"]
    check(after == before + 1, f"cancelled count went {before} -> {after}")

    # Logging.
    if era == LEGACY:
        await client.set_logging_level("warning")
    seen.logs.clear()
    r = await client.call_tool("log_demo", {})
    check(not r.is_error, f"log_demo: {r}")
    with anyio.fail_after(5):
        while len(seen.logs) < (2 if era == LEGACY else 4):
            await anyio.sleep(0.02)
    levels = [lvl for lvl, _ in seen.logs]
    want = ["warning", "error"] if era == LEGACY else ["debug", "info", "warning", "error"]
    check(levels == want, f"log levels received {levels}, want {want}")

    # Elicitation and sampling (server-to-client requests on legacy, input_required on 2026).
    r = await client.call_tool("ask_name", {})
    check(not r.is_error and texts(r) == ["Hello, Ada (36)!"], f"ask_name: {r}")
    check(len(seen.elicitations) == 1, f"elicitation callback ran {len(seen.elicitations)} times")
    r = await client.call_tool("summarize", {"text": "a long text " * 10})
    check(not r.is_error and texts(r) == ["Summary: a short summary"], f"summarize: {r}")
    check(len(seen.samplings) == 1 and "a long text" in seen.samplings[0], f"sampling saw {seen.samplings}")


def stdio(mode: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        seen = Observed()
        params = StdioServerParameters(command=BINARY, args=["--stdio"])
        async with make_client(params, mode, seen) as client:
            era = LEGACY if mode == "legacy" else MODERN
            check(client.protocol_version == era, f"negotiated {client.protocol_version}, want {era}")
            await exercise(client, seen, era)

    return run


def http(mode: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        seen = Observed()
        h = httpx2.AsyncClient(timeout=httpx2.Timeout(10.0, read=30.0))
        async with make_client(streamable_http_client(HTTP_URL, http_client=h), mode, seen) as client:
            era = LEGACY if mode == "legacy" else MODERN
            check(client.protocol_version == era, f"negotiated {client.protocol_version}, want {era}")
            await exercise(client, seen, era)

    return run


async def sse_legacy() -> None:
    seen = Observed()
    async with make_client(sse_client(SSE_URL, timeout=10, sse_read_timeout=30), "legacy", seen) as client:
        check(client.protocol_version == LEGACY, f"negotiated {client.protocol_version}")
        await exercise(client, seen, LEGACY)


TESTS: list[tuple[str, Callable[[], Awaitable[None]]]] = [
    ("stdio 2025-11-25", stdio("legacy")),
    ("stdio 2026-07-28", stdio("auto")),
    ("streamable-http 2025-11-25", http("legacy")),
    ("streamable-http 2026-07-28", http("auto")),
    ("http+sse 2025-11-25", sse_legacy),
]


async def main() -> int:
    passed = failed = 0
    for name, test in TESTS:
        try:
            with anyio.fail_after(TEST_TIMEOUT_S):
                await test()
            passed += 1
            print(f"ok   {name}")
        except BaseException as e:  # noqa: BLE001 - report every failure, keep going
            failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            traceback.print_exc()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
