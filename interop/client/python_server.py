#!/usr/bin/env python3
"""A server of our own on the official Python MCP SDK (PyPI `mcp`, pinned in run_python.sh),
for `tests/examples/client_interop.rs --profile python` to test our client against.

Usage: python_server.py stdio
       python_server.py http PORT        (Streamable HTTP at http://127.0.0.1:PORT/mcp)

The SDK serves 2025-11-25 (`initialize`) and 2026-07-28 (`server/discover`) on both
transports. What each feature answers is fixed here and asserted by the driver:

- tools: `echo(message)` -> "Echo: <message>"; `add(a, b)` -> "<a+b>"; `weather(city)` ->
  structured `{"city", "temperature_c", "conditions"}` (an output schema from the model);
  `progress(steps)` reports progress 1..steps of steps, then "done <steps>"; `slow(seconds)`
  sleeps (the driver cancels it); `calls()` -> how many tool calls ended, as text;
  `log_burst()` sends one log message per level (debug..emergency, logger "burst"), filtered
  by the level set with `logging/setLevel` (legacy) or by the request's `_meta` logLevel
  (2026, done by the SDK); `log_burst(tag, n)` sends n info messages "<tag>-<i>", 5 ms apart; `ask_name()` elicits `{name}` -> "Hello, <name>!" (declined ->
  "no name"); `summarize(text)` samples -> "summary: <model text>"; `roots()` -> the client's
  root URIs joined by ",". On 2025-11-25 the last three are server-to-client requests, on
  2026-07-28 `input_required` rounds (the SDK's `Resolve` does both).
- `tools/list` pages by 4 and `resources/list` by 1 (offset cursors; a bad cursor is -32602).
- resources: `demo://readme` (text/markdown "# Python server\n"), `demo://blob` (the bytes
  0..15, application/octet-stream), `demo://counted` ("read #<n>", n counting its reads),
  template `demo://notes/{id}` -> "note <id>".
- caching hints (2026-07-28): `tools/list` fresh for 60 s, `private`; `resources/read` for
  1.5 s, `public`. For the cache checks: `served()` -> `{"lists": <tools/list requests
  received>, "reads": <reads of demo://counted>}` as JSON text; `changed(uri?)` announces
  a tools list change (no uri) or an update of `uri` to `subscriptions/listen` streams.
- prompts: `greet(name, style?)` -> one user message "Hello <name>[, <style>]!".
- completion: prompt `greet` argument `name` -> the names of NAMES starting with the value;
  template `demo://notes/{id}` argument `id` -> "1", "2", "3" starting with the value.
"""

from __future__ import annotations

import json
import sys
from typing import Annotated, Any

import anyio
import mcp_types as types
from pydantic import BaseModel

from mcp.server.caching import CacheHint
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, ListRoots, MCPServer, Resolve, Sample
from mcp.server.mcpserver.prompts.base import UserMessage
from mcp.shared.exceptions import MCPError

NAMES = ["Alice", "Albert", "Bob"]
TOOLS_PAGE = 4
LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]

server = MCPServer(
    "python-interop-server",
    version="2.3.0-interop",
    cache_hints={
        "tools/list": CacheHint(ttl_ms=60_000, scope="private"),
        "resources/read": CacheHint(ttl_ms=1_500, scope="public"),
    },
)
state: dict[str, Any] = {"calls": 0, "level": "debug", "lists": 0, "reads": 0}


class Weather(BaseModel):
    city: str
    temperature_c: float
    conditions: str


class Name(BaseModel):
    name: str


def _ended() -> None:
    state["calls"] += 1


@server.tool(description="Echoes the message back")
def echo(message: str) -> str:
    _ended()
    return f"Echo: {message}"


@server.tool(description="Adds two integers")
def add(a: int, b: int) -> str:
    _ended()
    return str(a + b)


@server.tool(description="The weather in a city (structured)")
def weather(city: str) -> Weather:
    _ended()
    return Weather(city=city, temperature_c=21.5, conditions="sunny")


@server.tool(description="Reports progress 1..steps")
async def progress(steps: int, ctx: Context) -> str:
    for i in range(1, steps + 1):
        await ctx.report_progress(i, steps, f"step {i}")
        await anyio.sleep(0.05)
    _ended()
    return f"done {steps}"


@server.tool(description="Sleeps; the driver cancels it")
async def slow(seconds: float) -> str:
    try:
        await anyio.sleep(seconds)
        return f"slept {seconds}"
    finally:
        _ended()


@server.tool(description="How many tool calls ended (cancelled ones included)")
def calls() -> str:
    return str(state["calls"])


@server.tool(description="One log message per level; with a tag, n info messages tagged")
async def log_burst(ctx: Context, tag: str = "", n: int = 0) -> str:
    sent = 0
    if tag:
        # n messages "<tag>-<i>", 5 ms apart so that concurrent calls interleave theirs
        # (over stdio they name no request: a proxy must still deliver them).
        for i in range(n):
            await ctx.request_context.session.send_log_message(
                level="info", data=f"{tag}-{i}", logger="burst", related_request_id=ctx.request_id
            )
            await anyio.sleep(0.005)
        _ended()
        return "logged"
    floor = LEVELS.index(state["level"])
    for level in LEVELS:
        # Legacy: the application filters by the logging/setLevel level; on 2026 the
        # session drops what the request's _meta logLevel does not allow.
        if LEVELS.index(level) >= floor:
            await ctx.request_context.session.send_log_message(
                level=level, data=f"{level} message", logger="burst", related_request_id=ctx.request_id
            )
            sent += 1
    _ended()
    return "logged"


def _ask(ctx: Context) -> Elicit[Name]:
    return Elicit("What is your name?", Name)


@server.tool(description="Elicits a name")
def ask_name(answer: Annotated[ElicitationResult[Name], Resolve(_ask)]) -> str:
    _ended()
    if answer.action == "accept":
        return f"Hello, {answer.data.name}!"
    return "no name"


def _sample(text: str) -> Sample:
    return Sample(
        [types.SamplingMessage(role="user", content=types.TextContent(type="text", text=f"Summarize: {text}"))],
        max_tokens=50,
    )


@server.tool(description="Samples the client's model")
def summarize(text: str, sampled: Annotated[types.CreateMessageResult, Resolve(_sample)]) -> str:
    _ended()
    content = sampled.content
    return f"summary: {getattr(content, 'text', '?')}"


def _roots() -> ListRoots:
    return ListRoots()


@server.tool(description="The client's roots")
def roots(listed: Annotated[types.ListRootsResult, Resolve(_roots)]) -> str:
    _ended()
    return ",".join(str(r.uri) for r in listed.roots)


@server.tool(description="How many tools/list requests and demo://counted reads arrived")
def served() -> str:
    return json.dumps({"lists": state["lists"], "reads": state["reads"]})


@server.tool(description="Announces a change of the tool list, or of resource uri")
async def changed(ctx: Context, uri: str | None = None) -> str:
    if uri is None:
        await ctx.notify_tools_changed()
    else:
        await ctx.notify_resource_updated(uri)
    return "announced"


@server.resource("demo://readme", name="readme", mime_type="text/markdown")
def readme() -> str:
    return "# Python server\n"


@server.resource("demo://blob", name="blob", mime_type="application/octet-stream")
def blob() -> bytes:
    return bytes(range(16))


@server.resource("demo://counted", name="counted", mime_type="text/plain")
def counted() -> str:
    state["reads"] += 1
    return f"read #{state['reads']}"


@server.resource("demo://notes/{id}", name="note", mime_type="text/plain")
def note(id: str) -> str:
    return f"note {id}"


@server.prompt(description="Greets someone")
def greet(name: str, style: str | None = None) -> list[UserMessage]:
    suffix = f", {style}" if style else ""
    return [UserMessage(f"Hello {name}{suffix}!")]


@server.completion()
async def complete(ref: Any, argument: types.CompletionArgument, context: Any) -> types.Completion | None:
    if isinstance(ref, types.PromptReference) and ref.name == "greet" and argument.name == "name":
        values = [n for n in NAMES if n.startswith(argument.value)]
    elif isinstance(ref, types.ResourceTemplateReference) and argument.name == "id":
        values = [v for v in ["1", "2", "3"] if v.startswith(argument.value)]
    else:
        return None
    return types.Completion(values=values, total=len(values), has_more=False)


async def _set_level(ctx: Any, params: types.SetLevelRequestParams) -> types.EmptyResult:
    state["level"] = params.level
    return types.EmptyResult()


# MCPServer registers no `logging/setLevel`; the low-level server advertises `logging` once
# a handler exists.
server._lowlevel_server.add_request_handler("logging/setLevel", types.SetLevelRequestParams, _set_level)


def _page(items: list[Any], cursor: str | None, size: int) -> tuple[list[Any], str | None]:
    """One page of `items` from an opaque-to-the-client offset cursor."""
    if cursor is None:
        start = 0
    elif cursor.isdigit() and int(cursor) < len(items):
        start = int(cursor)
    else:
        raise MCPError(code=types.INVALID_PARAMS, message=f"bad cursor {cursor!r}")
    end = start + size
    return items[start:end], (str(end) if end < len(items) else None)


async def _list_tools_paged(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
    state["lists"] += 1
    page, next_cursor = _page(await server.list_tools(), params.cursor if params else None, TOOLS_PAGE)
    return types.ListToolsResult(tools=page, next_cursor=next_cursor)


async def _list_resources_paged(
    ctx: Any, params: types.PaginatedRequestParams | None
) -> types.ListResourcesResult:
    page, next_cursor = _page(await server.list_resources(), params.cursor if params else None, 1)
    return types.ListResourcesResult(resources=page, next_cursor=next_cursor)


# MCPServer lists everything on one page; these make the client follow `nextCursor`.
server._lowlevel_server.add_request_handler("tools/list", types.PaginatedRequestParams, _list_tools_paged)
server._lowlevel_server.add_request_handler("resources/list", types.PaginatedRequestParams, _list_resources_paged)


def main() -> None:
    if len(sys.argv) >= 2 and sys.argv[1] == "stdio":
        server.run("stdio")
    elif len(sys.argv) == 3 and sys.argv[1] == "http":
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        sys.exit("usage: python_server.py stdio | http PORT")


if __name__ == "__main__":
    main()
