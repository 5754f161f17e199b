#!/usr/bin/env python3
"""Interop: the official Python MCP SDK client (PyPI `mcp`, pinned in interop/python/venv.sh)
drives examples/gateway.rs over stdio, in both eras (2025-11-25 through `initialize`,
2026-07-28 through `server/discover`), with two upstreams behind it, each a child process
over stdio: `every` (examples/everything.rs) and `notes` (the gateway's own demo upstream).

Usage: test_gateway.py GATEWAY_BINARY EVERYTHING_BINARY

Checked through the gateway, every call answered: the merged tool list (the gateway's
`hello` beside `every_*` and `notes_*`), a local call, proxied calls, progress in order
(`every_countdown`), an elicitation asked by the upstream answered by this client
(`every_ask_name`), sampling (`every_summarize`), a prompt and a resource template of the
upstream under the namespace, and upstream log messages reaching this client.

Prints `<n> passed, <m> failed` as its last line; exits non-zero on any failure.
"""

from __future__ import annotations

import sys
import traceback
from typing import Any

import anyio
import mcp_types as types
from mcp import Client, StdioServerParameters
from mcp.client.stdio import stdio_client

GATEWAY, EVERYTHING = sys.argv[1], sys.argv[2]
LEGACY, MODERN = "2025-11-25", "2026-07-28"
TEST_TIMEOUT_S = 60.0


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def texts(result: Any) -> list[str]:
    return [getattr(b, "text", None) for b in result.content]


async def run(mode: str, want: str) -> None:
    logs: list[Any] = []
    asked: list[str] = []
    sampled: list[str] = []

    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        logs.append(params.data)

    async def on_elicit(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        asked.append(params.message)
        return types.ElicitResult(action="accept", content={"name": "Ada", "age": 36})

    async def on_sample(_ctx: Any, params: types.CreateMessageRequestParams) -> types.CreateMessageResult:
        sampled.append(getattr(params.messages[0].content, "text", ""))
        return types.CreateMessageResult(
            role="assistant",
            content=types.TextContent(type="text", text="a short summary"),
            model="interop-model",
            stop_reason="endTurn",
        )

    params = StdioServerParameters(
        command=GATEWAY,
        args=[
            "--stdio",
            "--upstream", f"every={EVERYTHING} --stdio",
            "--upstream", f"notes={GATEWAY} --demo-upstream",
        ],
    )
    client = Client(
        stdio_client(params),
        mode=mode,
        read_timeout_seconds=20,
        logging_callback=on_log,
        elicitation_callback=on_elicit,
        sampling_callback=on_sample,
        log_level="debug" if mode != "legacy" else None,
        cache=None,
    )
    async with client:
        check(client.protocol_version == want, f"negotiated {client.protocol_version}, want {want}")
        if mode == "legacy":
            await client.set_logging_level("debug")
        tools = {t.name for t in (await client.list_tools()).tools}
        for t in ("hello", "every_add", "every_countdown", "every_ask_name", "notes_count"):
            check(t in tools, f"{t} missing from {sorted(tools)}")
        r = await client.call_tool("hello", {"name": "Ada"})
        check(texts(r) == ["Hello, Ada, from the gateway!"], f"hello: {r}")
        r = await client.call_tool("every_add", {"a": 2, "b": 40})
        check(not r.is_error and "42" in texts(r)[0], f"every_add: {r}")

        progress: list[float] = []

        async def on_progress(p: float, _total: float | None, _message: str | None) -> None:
            progress.append(p)

        r = await client.call_tool("every_countdown", {"steps": 3, "delay_ms": 5}, progress_callback=on_progress)
        check(not r.is_error and progress == [1.0, 2.0, 3.0], f"every_countdown: {r}, progress {progress}")
        progress.clear()
        r = await client.call_tool("notes_count", {"to": 2}, progress_callback=on_progress)
        check(texts(r) == ["counted to 2"] and progress == [1.0, 2.0], f"notes_count: {r}, {progress}")

        r = await client.call_tool("every_ask_name", {})
        check(texts(r) == ["Hello, Ada (36)!"] and asked, f"every_ask_name: {r}, asked {asked}")
        r = await client.call_tool("every_summarize", {"text": "a long text " * 10})
        check(not r.is_error and sampled and "a short summary" in " ".join(map(str, texts(r))), f"every_summarize: {r}")

        r = await client.call_tool("every_log_demo", {})
        check(not r.is_error, f"every_log_demo: {r}")
        with anyio.move_on_after(2):
            while not logs:
                await anyio.sleep(0.05)
        check(logs, "no upstream log message reached the client")

        p = await client.get_prompt("every_greet", {"name": "Ada"})
        check(p.messages, f"every_greet: {p}")
        rr = await client.read_resource("everything://every/notes/7")
        check(rr.contents and str(rr.contents[0].uri) == "everything://every/notes/7", f"note: {rr}")


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
