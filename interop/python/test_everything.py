#!/usr/bin/env python3
"""Interop: the official Python MCP SDK client (PyPI `mcp`, pinned in run_everything.sh)
exercises examples/everything.rs over every transport it shares with us, at every revision
it speaks.

Usage: test_everything.py BINARY REV=BASE_URL [REV=BASE_URL ...]
Env: INTEROP_STDIO_LOG, the file the stdio servers' stderr is appended to (default: dropped);
     INTEROP_TRANSPORTS, the transports to run (comma separated names of the summary table's
     rows, e.g. `streamable-http`; default: all, and the command-line test);
     INTEROP_CLUSTER=1, the servers are replicas behind a load balancer: the cancellation
     check (a per-process count) is left out.

Each REV=BASE_URL names an `everything --http` process started with
`--protocol-versions REV` (BASE_URL e.g. http://127.0.0.1:3001; `/mcp` is Streamable HTTP,
`/sse` the 2024-11-05 HTTP+SSE transport). The client always offers its newest handshake
revision (2025-11-25), so a server offering only REV makes it negotiate down to REV; each
test asserts the negotiated revision. Per legacy REV: stdio (`BINARY --stdio
--protocol-versions REV`), Streamable HTTP and HTTP+SSE (`mode="legacy"`), and stdio in
`mode="auto"` (the `server/discover` probe fails as on a legacy server, and the client falls
back to `initialize`); per 2026-07-28: stdio and Streamable HTTP (`mode="auto"`, adopted
through `server/discover`).

Each run checks: the lists; tool calls; text and binary resources; a prompt; completion;
progress; a cancelled call (the server counts the cancellations it observed, read back
through the `stats` tool); logging; sampling; and what the negotiated revision defines,
present where it defines it and absent where it does not (`features`):
  2024-11-05  no tool annotations, titles, icons, outputSchema or structuredContent; audio
              and resource links arrive as text blocks; no elicitation; no `completions`
              capability (completion/complete exists)
  2025-03-26  tool annotations, audio content, the `completions` capability; JSON-RPC
              batches over Streamable HTTP (checked on the raw wire: the SDK never batches)
  2025-06-18  titles, outputSchema + structuredContent, resource links, elicitation
  2025-11-25  icons, URL-mode elicitation, `execution.taskSupport`, the `tasks` capability
  2026-07-28  elicitation and sampling as `input_required` rounds (answered through the
              same callbacks, then the call is retried)
A batch is refused on every revision but 2025-03-26. And `--protocol-versions` with a name
that is no revision exits 2 naming it.

Prints one line per test, then a summary table (transport x revision) and
`<n> passed, <m> failed` as its last line; exits non-zero on any failure.
"""

from __future__ import annotations

import base64
import json
import os
import sys
import traceback
from typing import Any, Awaitable, Callable

import anyio
import httpx2
import mcp_types as types
from mcp import Client, MCPError, StdioServerParameters
from mcp.client.sse import sse_client
from mcp.client.stdio import stdio_client
from mcp.client.streamable_http import streamable_http_client

MODERN = "2026-07-28"
REVISIONS = ("2024-11-05", "2025-03-26", "2025-06-18", "2025-11-25", MODERN)
TEST_TIMEOUT_S = 60.0

BINARY = sys.argv[1]
# Where the stdio servers' stderr goes (run_everything.sh shows it when a test fails).
STDIO_LOG = os.environ.get("INTEROP_STDIO_LOG", os.devnull)
CLUSTER = os.environ.get("INTEROP_CLUSTER") == "1"
SERVERS: dict[str, str] = dict(arg.split("=", 1) for arg in sys.argv[2:])

TOOLS = {"add", "media", "sign_in", "countdown", "sleep", "stats", "log_demo", "ask_name", "summarize", "weather"}
PROMPTS = {"greet", "describe_logo"}
RESOURCES = {"everything://readme", "everything://logo.png"}
TEMPLATES = {"everything://notes/{id}"}


def check(cond: bool, what: str) -> None:
    if not cond:
        raise AssertionError(what)


def texts(result: Any) -> list[str]:
    return [getattr(b, "text", None) for b in result.content]


def since(rev: str, first: str) -> bool:
    """Whether revision `rev` has what `first` introduced."""
    return REVISIONS.index(rev) >= REVISIONS.index(first)


def structured(result: Any, rev: str) -> dict[str, Any]:
    """A tool's structured output: `structuredContent` where the revision has it, else the
    JSON text block that carries the same object."""
    if since(rev, "2025-06-18"):
        check(result.structured_content is not None, f"no structuredContent at {rev}: {result}")
        return result.structured_content
    check(result.structured_content is None, f"structuredContent sent at {rev}: {result}")
    return json.loads(texts(result)[0])


class Observed:
    """What the client's callbacks saw."""

    def __init__(self) -> None:
        self.logs: list[tuple[str, Any]] = []
        self.elicitations: list[str] = []
        self.urls: list[str] = []
        self.samplings: list[str] = []


def make_client(transport: Any, mode: str, seen: Observed) -> Client:
    async def on_log(params: types.LoggingMessageNotificationParams) -> None:
        seen.logs.append((params.level, params.data))

    async def on_elicit(_ctx: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        if params.mode == "url":
            seen.urls.append(params.url)
            return types.ElicitResult(action="accept")
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


async def exercise(client: Client, seen: Observed, rev: str) -> None:
    check(client.protocol_version == rev, f"negotiated {client.protocol_version}, want {rev}")
    await features(client, rev)

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
    check(not r.is_error and structured(r, rev).get("city") == "Lisbon", f"weather: {r}")

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

    # Cancellation: a call abandoned mid-way is seen by the server as cancelled. Not behind a
    # load balancer (INTEROP_CLUSTER=1): `stats` counts per process, so the count read back
    # may come from another replica than the one that ran the call (tests/tests/redis_http.rs
    # checks a cancellation relayed across replicas instead).
    if not CLUSTER:
        await cancellation(client, rev)
    await logging_elicitation_sampling(client, seen, rev)


async def cancellation(client: Client, rev: str) -> None:
    before = structured(await client.call_tool("stats", {}), rev)["cancelled"]
    with anyio.move_on_after(0.5):
        await client.call_tool("sleep", {"ms": 20_000})
        raise AssertionError("sleep returned before it was cancelled")
    after = before
    with anyio.fail_after(10):
        while after == before:
            await anyio.sleep(0.05)
            after = structured(await client.call_tool("stats", {}), rev)["cancelled"]
    check(after == before + 1, f"cancelled count went {before} -> {after}")


async def logging_elicitation_sampling(client: Client, seen: Observed, rev: str) -> None:
    # Logging: the session's level on legacy, everything the request opted into on 2026.
    legacy = rev != MODERN
    if legacy:
        await client.set_logging_level("warning")
    seen.logs.clear()
    r = await client.call_tool("log_demo", {})
    check(not r.is_error, f"log_demo: {r}")
    with anyio.fail_after(5):
        while len(seen.logs) < (2 if legacy else 4):
            await anyio.sleep(0.02)
    levels = [lvl for lvl, _ in seen.logs]
    want = ["warning", "error"] if legacy else ["debug", "info", "warning", "error"]
    check(levels == want, f"log levels received {levels}, want {want}")

    # Elicitation (2025-06-18+) and sampling: server-to-client requests on legacy,
    # input_required rounds on 2026.
    if since(rev, "2025-06-18"):
        r = await client.call_tool("ask_name", {})
        check(not r.is_error and texts(r) == ["Hello, Ada (36)!"], f"ask_name: {r}")
        check(len(seen.elicitations) == 1, f"elicitation callback ran {len(seen.elicitations)} times")
    else:
        refused = await refusal(client.call_tool("ask_name", {}))
        check(refused is not None, f"ask_name at {rev} (no elicitation) succeeded")
        check(seen.elicitations == [], f"elicitation reached the client at {rev}: {seen.elicitations}")
    # URL-mode elicitation (2025-11-25+).
    if since(rev, "2025-11-25"):
        r = await client.call_tool("sign_in", {})
        check(not r.is_error and texts(r) == ["You went to sign in."], f"sign_in: {r}")
        check(seen.urls == ["https://example.com/sign-in"], f"URL elicitations seen: {seen.urls}")
    else:
        refused = await refusal(client.call_tool("sign_in", {}))
        check(refused is not None, f"sign_in at {rev} (no URL elicitation) succeeded")
        check(seen.urls == [], f"URL elicitation reached the client at {rev}: {seen.urls}")
    r = await client.call_tool("summarize", {"text": "a long text " * 10})
    check(not r.is_error and texts(r) == ["Summary: a short summary"], f"summarize: {r}")
    check(len(seen.samplings) == 1 and "a long text" in seen.samplings[0], f"sampling saw {seen.samplings}")


async def refusal(call: Awaitable[Any]) -> str | None:
    """What refused a call: an error result's text or a JSON-RPC error; None on success."""
    try:
        r = await call
    except MCPError as e:
        return f"error {e.error.code}: {e.error.message}"
    return " ".join(t or "" for t in texts(r)) if r.is_error else None


async def features(client: Client, rev: str) -> None:
    """What `rev` defines is there, and what it lacks is absent (see the module docs)."""
    caps = client.server_capabilities
    if rev != MODERN:
        has = caps.completions is not None
        check(has == since(rev, "2025-03-26"), f"completions capability {has} at {rev}")
        has = caps.tasks is not None
        check(has == (rev == "2025-11-25"), f"tasks capability {has} at {rev}")

    tools = {t.name: t for t in (await client.list_tools()).tools}
    add, weather, report = tools["add"], tools["weather"], tools["report"]
    got = add.annotations is not None and add.annotations.read_only_hint is True
    check(got == since(rev, "2025-03-26"), f"add annotations at {rev}: {add.annotations}")
    want_title = "Add two integers" if since(rev, "2025-06-18") else None
    check(add.title == want_title, f"add title at {rev}: {add.title!r}")
    got = [i.src for i in add.icons or []]
    want = ["https://example.com/icons/add.svg"] if since(rev, "2025-11-25") else []
    check(got == want, f"add icons at {rev}: {got}")
    has = weather.output_schema is not None
    check(has == since(rev, "2025-06-18"), f"weather outputSchema {has} at {rev}")
    support = report.execution.task_support if report.execution else None
    check(support == ("optional" if rev == "2025-11-25" else None), f"report execution at {rev}: {support}")

    # Audio (2025-03-26+) and resource links (2025-06-18+); text blocks where missing.
    r = await client.call_tool("media", {})
    check(not r.is_error and len(r.content) == 2, f"media: {r}")
    audio, link = r.content
    if since(rev, "2025-03-26"):
        check(audio.type == "audio" and audio.mime_type == "audio/wav", f"audio at {rev}: {audio}")
        check(base64.b64decode(audio.data).startswith(b"RIFF"), "the audio is not a WAV")
    else:
        check(audio.type == "text" and audio.text.startswith("[audio: audio/wav"), f"audio at {rev}: {audio}")
    check(audio.annotations is not None and audio.annotations.audience == ["user"], f"audio annotations: {audio}")
    if since(rev, "2025-06-18"):
        check(link.type == "resource_link" and link.uri == "everything://readme", f"link at {rev}: {link}")
    else:
        check(link.type == "text" and "everything://readme" in link.text, f"link at {rev}: {link}")


def stdio(rev: str, mode: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        seen = Observed()
        args = ["--stdio", "--protocol-versions", rev]
        params = StdioServerParameters(command=BINARY, args=args)
        with open(STDIO_LOG, "a", encoding="utf-8") as errlog:
            async with make_client(stdio_client(params, errlog=errlog), mode, seen) as client:
                await exercise(client, seen, rev)

    return run


def http(rev: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        seen = Observed()
        h = httpx2.AsyncClient(timeout=httpx2.Timeout(10.0, read=30.0))
        mode = "auto" if rev == MODERN else "legacy"
        async with make_client(streamable_http_client(f"{SERVERS[rev]}/mcp", http_client=h), mode, seen) as client:
            await exercise(client, seen, rev)

    return run


def sse(rev: str) -> Callable[[], Awaitable[None]]:
    async def run() -> None:
        seen = Observed()
        transport = sse_client(f"{SERVERS[rev]}/sse", timeout=10, sse_read_timeout=30)
        async with make_client(transport, "legacy", seen) as client:
            await exercise(client, seen, rev)

    return run


def batch(rev: str) -> Callable[[], Awaitable[None]]:
    """On the raw wire (the SDK never batches): a session at `rev`, then two pings in one
    POST. 2025-03-26 answers both in one array; every other revision refuses the batch."""

    async def run() -> None:
        url = f"{SERVERS[rev]}/mcp"
        accept = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}
        init = {
            "jsonrpc": "2.0", "id": 1, "method": "initialize",
            "params": {"protocolVersion": rev, "capabilities": {}, "clientInfo": {"name": "raw", "version": "1"}},
        }
        async with httpx2.AsyncClient(timeout=10.0) as h:
            r = await h.post(url, json=init, headers=accept)
            check(r.status_code == 200, f"initialize: {r.status_code} {r.text}")
            got = sse_or_json(r)["result"]["protocolVersion"]
            check(got == rev, f"negotiated {got}, want {rev}")
            session = {**accept, "Mcp-Session-Id": r.headers["mcp-session-id"]}
            if since(rev, "2025-06-18"):
                session["MCP-Protocol-Version"] = rev
            done = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            check((await h.post(url, json=done, headers=session)).status_code == 202, "initialized")
            pings = [{"jsonrpc": "2.0", "id": n, "method": "ping"} for n in (2, 3)]
            r = await h.post(url, json=pings, headers=session)
            body = sse_or_json(r)
            if rev == "2025-03-26":
                check(isinstance(body, list) and sorted(m["id"] for m in body) == [2, 3]
                      and all(m.get("result") == {} for m in body), f"batch at {rev}: {r.status_code} {body}")
            else:
                check(isinstance(body, dict) and body.get("error", {}).get("code") == -32600,
                      f"batch at {rev} was not refused: {r.status_code} {body}")
            await h.delete(url, headers=session)

    return run


def sse_or_json(r: Any) -> Any:
    """The one JSON-RPC message (or array) of a JSON or single-event SSE answer."""
    if r.headers.get("content-type", "").startswith("text/event-stream"):
        data = [line[5:].strip() for line in r.text.splitlines() if line.startswith("data:")]
        data = [d for d in data if d]
        check(len(data) == 1, f"expected one SSE event, got {data}")
        return json.loads(data[0])
    return r.json()


async def bad_revisions() -> None:
    """`--protocol-versions` with a name that is no revision: exit 2 naming the bad name,
    before serving anything."""
    for arg, bad in [("2025-13-01", "2025-13-01"), ("2025-06-18,nope", "nope"), ("", '""')]:
        with anyio.fail_after(10):
            p = await anyio.run_process([BINARY, "--stdio", "--protocol-versions", arg], check=False)
        err = p.stderr.decode()
        check(p.returncode == 2 and "--protocol-versions" in err and bad in err, f"{arg!r}: exit {p.returncode}, {err!r}")
        check(p.stdout == b"", f"{arg!r}: wrote {p.stdout!r}")


TRANSPORTS = ("stdio", "stdio auto", "streamable-http", "http+sse", "raw batch")


def tests() -> list[tuple[str, str, Callable[[], Awaitable[None]]]]:
    only = os.environ.get("INTEROP_TRANSPORTS")
    if only:
        keep = set(only.split(","))
        return [t for t in all_tests() if t[0] in keep]
    return all_tests()


def all_tests() -> list[tuple[str, str, Callable[[], Awaitable[None]]]]:
    out = [("command line", "bad revision", bad_revisions)]
    for rev in REVISIONS:
        if rev not in SERVERS:
            continue
        if rev == MODERN:
            out += [("stdio", rev, stdio(rev, "auto")), ("streamable-http", rev, http(rev))]
            continue
        out += [
            ("stdio", rev, stdio(rev, "legacy")),
            # Dual-era probing: `server/discover` first, then the fall back to `initialize`.
            ("stdio auto", rev, stdio(rev, "auto")),
            ("streamable-http", rev, http(rev)),
            ("http+sse", rev, sse(rev)),
            ("raw batch", rev, batch(rev)),
        ]
    return out


def table(results: dict[tuple[str, str], str]) -> None:
    revs = [r for r in REVISIONS if r in SERVERS]
    print(f"{'python client':<16}" + "".join(f"{r:<12}" for r in revs))
    for t in TRANSPORTS:
        print(f"{t:<16}" + "".join(f"{results.get((t, r), '-'):<12}" for r in revs))


def leaf(e: BaseException) -> BaseException:
    """The first exception inside (nested) exception groups: what a task group wrapped."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


async def main() -> int:
    passed = failed = 0
    results: dict[tuple[str, str], str] = {}
    for transport, rev, test in tests():
        name = f"{transport} {rev}"
        try:
            with anyio.fail_after(TEST_TIMEOUT_S):
                await test()
            passed += 1
            results[(transport, rev)] = "ok"
            print(f"ok   {name}")
        except BaseException as e:  # noqa: BLE001 - report every failure, keep going
            failed += 1
            results[(transport, rev)] = "FAIL"
            cause = leaf(e)
            print(f"FAIL {name}: {type(cause).__name__}: {cause}")
            traceback.print_exc()
    table(results)
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
