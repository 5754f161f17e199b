#!/usr/bin/env python3
"""Interop through a Redis failover: the official Python MCP SDK client runs the Streamable
HTTP exercise of test_everything.py again and again through nginx, against replicas whose
Redis is a primary with two replicas and three Sentinels, or a Redis Cluster with a replica
per primary, while the test that started it (tests/tests/redis_failover.rs) kills a primary
(`deploy/cluster.sh redis-failover`) and does not bring it back.

Usage: test_failover.py BINARY REV=BASE_URL [REV=BASE_URL ...]   (as test_everything.py)
Env: FAILOVER_DIR (required): the directory shared with the test; the test creates
     `FAILOVER_DIR/done` once the failover is over. Each round runs every REV once; after
     FAILOVER_AFTER (default 2) rounds begun after `done` appeared, the script ends.
     FAILOVER_DEADLINE_S (default 150): past it, the script ends as failed.

Retrying: a run (one exercise on a fresh client, session and connection) that fails is run
again, after the `Retry-After` of the answer, only when the server answered 503 during it
and answered nothing else a failover must not cause: no 404 or 410 (a session or a stream
acknowledged and then lost), no other 5xx, and never a 503 without `Retry-After`; at most
FAILOVER_ATTEMPTS (default 30) times. The SDK client itself retries nothing: a 503 reaches
the exercise as a JSON-RPC error (or fails its `initialize`).

Prints `ok   run N REV attempts=K` per run (flushed as it goes), a `summary runs=N
retried=R 503=M statuses={...}` line and `<n> passed, <m> failed` last; exits non-zero on
any failure.
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from collections import Counter
from typing import Any

os.environ.setdefault("INTEROP_CLUSTER", "1")  # behind nginx: no per-process cancel count
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import anyio  # noqa: E402
import httpx2  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402

import test_everything as te  # noqa: E402  (reads BINARY and REV=BASE_URL from sys.argv)

DIR = os.environ["FAILOVER_DIR"]
AFTER = int(os.environ.get("FAILOVER_AFTER", "2"))
ATTEMPTS = int(os.environ.get("FAILOVER_ATTEMPTS", "30"))
DEADLINE_S = float(os.environ.get("FAILOVER_DEADLINE_S", "150"))

STATUSES: Counter[int] = Counter()


class Attempt:
    """What the server answered during one attempt of a run."""

    def __init__(self) -> None:
        self.unavailable = 0
        self.retry_after = 1.0
        self.bad: list[str] = []

    async def on_response(self, r: httpx2.Response) -> None:
        STATUSES[r.status_code] += 1
        what = f"{r.status_code} {r.request.method} {r.request.url}"
        if r.status_code == 503:
            self.unavailable += 1
            after = r.headers.get("retry-after")
            if after is None or not after.isdigit():
                self.bad.append(f"{what} without Retry-After ({after!r})")
            else:
                self.retry_after = min(max(float(after), 0.2), 5.0)
        elif r.status_code in (404, 410) or r.status_code >= 500:
            self.bad.append(what)


async def one_run(rev: str, attempt: Attempt) -> None:
    seen = te.Observed()
    h = httpx2.AsyncClient(
        timeout=httpx2.Timeout(10.0, read=30.0), event_hooks={"response": [attempt.on_response]}
    )
    mode = "auto" if rev == te.MODERN else "legacy"
    transport = streamable_http_client(f"{te.SERVERS[rev]}/mcp", http_client=h)
    async with te.make_client(transport, mode, seen) as client:
        await te.exercise(client, seen, rev)


async def run(n: int, rev: str) -> tuple[bool, int]:
    """One run, retried as the module docs say: whether it passed, and its attempts."""
    for k in range(1, ATTEMPTS + 1):
        attempt = Attempt()
        try:
            with anyio.fail_after(te.TEST_TIMEOUT_S):
                await one_run(rev, attempt)
        except BaseException as e:  # noqa: BLE001 - judged below, reported
            cause = te.leaf(e)
            if attempt.bad:
                print(f"FAIL run {n} {rev}: answered {attempt.bad} ({type(cause).__name__}: {cause})", flush=True)
                return False, k
            if attempt.unavailable == 0:
                print(f"FAIL run {n} {rev}: {type(cause).__name__}: {cause} (no 503 met)", flush=True)
                traceback.print_exc()
                return False, k
            print(f"retry run {n} {rev}: attempt {k} met {attempt.unavailable} 503: {cause}", flush=True)
            await anyio.sleep(attempt.retry_after)
            continue
        if attempt.bad:
            print(f"FAIL run {n} {rev}: passed, but answered {attempt.bad}", flush=True)
            return False, k
        print(f"ok   run {n} {rev} attempts={k} 503={attempt.unavailable}", flush=True)
        return True, k
    print(f"FAIL run {n} {rev}: still 503 after {ATTEMPTS} attempts", flush=True)
    return False, ATTEMPTS


async def main() -> int:
    revs = [r for r in te.REVISIONS if r in te.SERVERS]
    deadline = time.monotonic() + DEADLINE_S
    passed = failed = retried = n = after = 0
    while after < AFTER:
        if time.monotonic() > deadline:
            print(f"FAIL: {DEADLINE_S} s passed and the failover was not over", flush=True)
            failed += 1
            break
        over = os.path.exists(os.path.join(DIR, "done"))
        for rev in revs:
            n += 1
            ok, attempts = await run(n, rev)
            passed += ok
            failed += not ok
            retried += attempts > 1
        after += over
    print(f"summary runs={n} retried={retried} 503={STATUSES[503]} statuses={dict(sorted(STATUSES.items()))}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(anyio.run(main))
