#!/usr/bin/env python3
"""The load of deploy/chaos.sh: clients that drive the deployment through nginx for a fixed
time and record every call, then check what was acknowledged and write the report.

Usage: chaos_driver.py URL SECONDS OUT_DIR [MCP_CLI]

Clients (threads, each call bounded by a timeout; a failure is a non-2xx answer, a
JSON-RPC error, a timeout or a refused connection):
- `raw`: 2025-11-25 legacy sessions (the newest 300 kept, older ones ended with DELETE) over plain HTTP (stdlib): initialize, a countdown
  streamed with progress (its events and their ids kept as acknowledged), then, on a random
  earlier acknowledged session, a call (`add`) and a resume of the countdown's stream from
  its priming event (`Last-Event-ID`). A 404 on an acknowledged session is a lost write;
  a replayed stream missing an acknowledged event is a lost event; an event id twice in one
  answer, or a replay with more than was acknowledged, is an event delivered twice.
- `cli-2025` / `cli-2026`: our client, `mcp call --protocol REV URL add a=1 b=2` (a new
  session or a stateless call each time), when MCP_CLI is given.
- `py-2025` / `py-2026`: the official Python SDK client, a fresh client each time (`add`,
  then `countdown` with progress), when `mcp` imports (run it with interop's venv).

At the end: acknowledged sessions and streams (500 at most, at random) are checked once more (all faults healed
by then), and OUT_DIR/ops.csv (every call), OUT_DIR/seconds.csv (per second: calls ok and
failed) and OUT_DIR/report.md (per fault, from OUT_DIR/faults.log written by chaos.sh) are
written.
"""

from __future__ import annotations

import http.client
import json
import os
import random
import subprocess
import sys
import threading
import time
import urllib.parse

URL, SECONDS, OUT = sys.argv[1], float(sys.argv[2]), sys.argv[3]
CLI = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
U = urllib.parse.urlparse(URL)
T0 = time.time()
END = T0 + SECONDS
LOCK = threading.Lock()
OPS: list[tuple[float, float, str, str, bool, str]] = []  # start, end, client, op, ok, detail
ACKED: list[tuple[str, list[tuple[str, str]]]] = []  # session, its countdown's events
LOST: list[str] = []
KEEP = 300  # acknowledged sessions kept and checked at once
ENDED: set[str] = set()  # sessions this driver ended (DELETE): a 404 on them is no loss
TWICE: list[str] = []


def record(start: float, client: str, op: str, ok: bool, detail: str = "") -> None:
    with LOCK:
        OPS.append((start, time.time(), client, op, ok, detail[:200].replace("\n", " ")))


def request(method: str, body: dict | None, sid: str | None = None, last: str | None = None):
    """One request through nginx: (status, headers, body text); raises on a transport error."""
    c = http.client.HTTPConnection(U.hostname, U.port, timeout=15)
    try:
        h = {"accept": "application/json, text/event-stream", "content-type": "application/json"}
        if sid:
            h["mcp-session-id"] = sid
            h["mcp-protocol-version"] = "2025-11-25"
        if last:
            h["last-event-id"] = last
        c.request(method, U.path, body=json.dumps(body) if body is not None else None, headers=h)
        r = c.getresponse()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, r.read().decode()
    finally:
        c.close()


def events(text: str) -> list[tuple[str, str]]:
    out = []
    for block in text.split("\n\n"):
        eid, data = None, []
        for line in block.splitlines():
            if line.startswith("id: "):
                eid = line[4:]
            elif line.startswith("data: "):
                data.append(line[6:])
        if eid is not None:
            out.append((eid, "\n".join(data)))
    return out


def call(client: str, op: str, method: str, body: dict | None, sid=None, last=None):
    """A request recorded as one call: the answer, or None when it failed."""
    start = time.time()
    try:
        status, headers, text = request(method, body, sid, last)
    except Exception as e:  # noqa: BLE001 - a transport failure is a failed call
        record(start, client, op, False, f"{type(e).__name__}: {e}")
        return None
    ok = 200 <= status < 300 and '"error"' not in text
    record(start, client, op, ok, "" if ok else f"{status} {text[:120]}")
    return (status, headers, text)


INIT = {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
    "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "chaos", "version": "1"}}}


def check_session(client: str, sid: str, stored: list[tuple[str, str]], final: bool) -> None:
    """A call in an acknowledged session, and its stream replayed: lost or doubled?"""
    add = {"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": {"name": "add", "arguments": {"a": 2, "b": 3}}}
    r = call(client, "old-session-call", "POST", add, sid)
    if r and r[0] == 404:
        with LOCK:
            if sid not in ENDED:
                LOST.append(f"session {sid} (404{' at the end' if final else ''})")
    elif r is None or r[0] != 200:
        # Unavailable, not lost: judged again later.
        pass
    start = time.time()
    try:
        status, _, text = request("GET", None, sid, stored[0][0])
    except Exception as e:  # noqa: BLE001
        record(start, client, "resume", False, f"{type(e).__name__}: {e}")
        return
    record(start, client, "resume", status == 200, f"{status} {text[:100]}")
    if status == 404:
        with LOCK:
            if sid not in ENDED:
                LOST.append(f"stream of {sid} (404)")
    if status != 200:
        return
    got = events(text)
    ids = [i for i, _ in got]
    if len(ids) != len(set(ids)) or len(got) > len(stored) - 1:
        with LOCK:
            TWICE.append(f"replay of {sid}: {ids} for {[i for i, _ in stored[1:]]}")
    missing = [e for e in stored[1:] if e not in got]
    if missing:
        with LOCK:
            LOST.append(f"events of {sid}: {[i for i, _ in missing]}")


def raw_worker(name: str) -> None:
    n = 0
    while time.time() < END:
        n += 1
        r = call(name, "initialize", "POST", INIT)
        if r and r[0] == 200 and r[1].get("mcp-session-id"):
            sid = r[1]["mcp-session-id"]
            note = {"jsonrpc": "2.0", "method": "notifications/initialized"}
            r2 = call(name, "initialized", "POST", note, sid)
            cd = {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {
                "name": "countdown", "arguments": {"steps": 4, "delay_ms": 20},
                "_meta": {"progressToken": f"p{n}"}}}
            r3 = call(name, "countdown", "POST", cd, sid) if r2 else None
            if r3 and r3[0] == 200:
                ev = events(r3[2])
                ids = [i for i, _ in ev]
                if len(ids) != len(set(ids)):
                    with LOCK:
                        TWICE.append(f"answer of {sid}: {ids}")
                if len(ev) == 6:
                    with LOCK:
                        ACKED.append((sid, ev))
                        old = ACKED.pop(0) if len(ACKED) > KEEP else None
                        if old:
                            ENDED.add(old[0])
                    if old:
                        # Below each replica's session cap (an evicted session's stored
                        # events are forgotten): the oldest is ended and no longer checked.
                        call(name, "delete", "DELETE", None, old[0])
        with LOCK:
            pick = random.choice(ACKED) if ACKED else None
        if pick:
            check_session(name, pick[0], pick[1], False)
        time.sleep(0.05)


def cli_worker(name: str, rev: str) -> None:
    while time.time() < END:
        start = time.time()
        try:
            p = subprocess.run([CLI, "call", "--protocol", rev, URL, "add", "a=1", "b=2"],
                               capture_output=True, text=True, timeout=20)
            ok = p.returncode == 0 and "3" in p.stdout
            record(start, name, "add", ok, "" if ok else f"exit {p.returncode}: {p.stderr.strip()[-150:]}")
        except subprocess.TimeoutExpired:
            record(start, name, "add", False, "timeout")
        time.sleep(0.1)


def python_sdk_workers() -> list[threading.Thread]:
    try:
        import anyio
        import httpx2
        from mcp import Client
        from mcp.client.streamable_http import streamable_http_client
    except ImportError as e:
        print(f"chaos: no Python SDK client ({e}); run with interop's venv to add it", file=sys.stderr)
        return []

    async def one(name: str, mode: str) -> None:
        while time.time() < END:
            start = time.time()
            try:
                with anyio.fail_after(20):
                    h = httpx2.AsyncClient(timeout=httpx2.Timeout(10.0, read=15.0))
                    async with Client(streamable_http_client(URL, http_client=h), mode=mode,
                                      read_timeout_seconds=15) as client:
                        record(start, name, "connect", True)
                        start = time.time()
                        r = await client.call_tool("add", {"a": 2, "b": 40})
                        ok = not r.is_error and "42" in str(r.content)
                        record(start, name, "add", ok, "" if ok else str(r.content))
                        start = time.time()
                        steps = []

                        async def on_progress(p, total, message):
                            steps.append(p)
                        r = await client.call_tool("countdown", {"steps": 3, "delay_ms": 10},
                                                   progress_callback=on_progress)
                        ok = not r.is_error and len(steps) == 3
                        record(start, name, "countdown", ok, "" if ok else f"{steps} {r.content}")
            except BaseException as e:  # noqa: BLE001 - any failure is a failed call
                if isinstance(e, KeyboardInterrupt):
                    raise
                record(start, name, "call", False, f"{type(e).__name__}: {e}")
                await anyio.sleep(0.3)
            await anyio.sleep(0.1)

    def run(name: str, mode: str) -> None:
        anyio.run(one, name, mode)

    return [threading.Thread(target=run, args=("py-2025", "legacy"), daemon=True),
            threading.Thread(target=run, args=("py-2026", "auto"), daemon=True)]


def longest_gap(succ: list[float], a: float, b: float) -> float:
    """The longest time within [a, b] with no successful call ending."""
    points = [a] + [t for t in succ if a <= t <= b] + [b]
    return max(y - x for x, y in zip(points, points[1:]))


def report() -> None:
    ops = sorted(OPS, key=lambda o: o[1])
    with open(os.path.join(OUT, "ops.csv"), "w") as f:
        f.write("start_s,end_s,client,op,ok,detail\n")
        for s, e, c, op, ok, d in ops:
            f.write(f"{s - T0:.3f},{e - T0:.3f},{c},{op},{int(ok)},\"{d.replace(chr(34), chr(39))}\"\n")
    secs = int(max((o[1] for o in ops), default=T0) - T0) + 1
    per = [[0, 0] for _ in range(secs)]
    for _, e, _, _, ok, _ in ops:
        per[int(e - T0)][0 if ok else 1] += 1
    with open(os.path.join(OUT, "seconds.csv"), "w") as f:
        f.write("second,ok,failed\n")
        for i, (ok, bad) in enumerate(per):
            f.write(f"{i},{ok},{bad}\n")
    succ = [o[1] for o in ops if o[4]]
    faults = []
    try:
        with open(os.path.join(OUT, "faults.log")) as f:
            for line in f:
                t, kind, what = line.rstrip("\n").split(" ", 2)
                faults.append((float(t), kind, what))
    except FileNotFoundError:
        pass
    injected = [(t, what) for t, kind, what in faults if kind == "inject"]
    clients = sorted({o[2] for o in ops})
    lines = [
        f"Run of {SECONDS:.0f} s through {URL}: {len(ops)} calls, {sum(1 for o in ops if not o[4])} failed; "
        f"clients {', '.join(clients)}; {len(injected)} faults.",
        "",
        "| clients | calls | failed |",
        "| --- | ---: | ---: |",
    ]
    for c in clients:
        mine = [o for o in ops if o[2] == c]
        lines.append(f"| {c} | {len(mine)} | {sum(1 for o in mine if not o[4])} |")
    lines += [
        "",
        f"Longest window with no successful call, whole run: {longest_gap(succ, T0 + 1, END):.1f} s. "
        f"Acknowledged sessions (with a streamed countdown) checked: {len(ACKED)}; "
        f"acknowledged writes or events lost: {len(LOST)}; events delivered twice: {len(TWICE)}.",
        "",
        "| fault | injected at (s) | healed at (s) | calls failed until the next fault | longest window with no successful call (s): any client, the worst client |",
        "| --- | ---: | ---: | ---: | ---: |",
    ]
    heals = [(t, what) for t, kind, what in faults if kind == "heal"]
    summary: dict[str, list[tuple[int, float]]] = {}
    for i, (t, what) in enumerate(injected):
        nxt = injected[i + 1][0] if i + 1 < len(injected) else END
        healed = next((h for h, w in heals if h >= t and w == what), None)
        failed = sum(1 for o in ops if not o[4] and t <= o[1] < nxt)
        gap = longest_gap(succ, t, nxt)
        worst = max(((longest_gap([o[1] for o in ops if o[4] and o[2] == c], t, nxt), c)
                     for c in clients if c != "final"), default=(0.0, "-"))
        kind = what.split(" ")[0]
        summary.setdefault(kind, []).append((failed, gap, worst[0]))
        lines.append(f"| {what} | {t - T0:.1f} | {'' if healed is None else f'{healed - T0:.1f}'} | {failed} | "
                     f"{gap:.1f}, {worst[0]:.1f} ({worst[1]}) |")
    lines += ["", "| fault kind | times | failed calls (total, most in one fault) | longest window with no successful call, any client (s): median, max | the same for the worst client (s): median, max |",
              "| --- | ---: | ---: | ---: | ---: |"]
    for kind, rows in sorted(summary.items()):
        gaps = sorted(g for _, g, _ in rows)
        worst = sorted(w for _, _, w in rows)
        lines.append(f"| {kind} | {len(rows)} | {sum(f for f, _, _ in rows)}, {max(f for f, _, _ in rows)} | "
                     f"{gaps[len(gaps) // 2]:.1f}, {gaps[-1]:.1f} | {worst[len(worst) // 2]:.1f}, {worst[-1]:.1f} |")
    bad = [o for o in ops if not o[4]]
    kinds: dict[str, int] = {}
    for o in bad:
        key = f"{o[2]} {o[3]}: {o[5][:60]}"
        kinds[key] = kinds.get(key, 0) + 1
    lines += ["", "Failures by kind (most frequent first):", ""]
    lines += [f"- {n} × {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1])[:15]]
    if LOST or TWICE:
        lines += ["", "Lost:", *[f"- {x}" for x in LOST[:20]], "Twice:", *[f"- {x}" for x in TWICE[:20]]]
    with open(os.path.join(OUT, "report.md"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("\n".join(lines))


def main() -> int:
    threads = [threading.Thread(target=raw_worker, args=(f"raw{i}",), daemon=True) for i in (1, 2)]
    if CLI:
        threads += [threading.Thread(target=cli_worker, args=(f"cli-{r[:4]}", r), daemon=True)
                    for r in ("2025-11-25", "2026-07-28")]
    threads += python_sdk_workers()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=max(END - time.time(), 0) + 60)
    # Every acknowledged session once more, the faults healed (chaos.sh waits for that).
    with LOCK:
        acked = random.sample(ACKED, min(len(ACKED), 500))
    for sid, ev in acked:
        check_session("final", sid, ev, True)
    report()
    return 1 if LOST or TWICE else 0


if __name__ == "__main__":
    sys.exit(main())
