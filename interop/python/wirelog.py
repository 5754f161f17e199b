#!/usr/bin/env python3
"""Stdio relay that records the JSON-RPC wire exchange.

Usage: wirelog.py LOGFILE -- COMMAND [ARGS...]

Spawns COMMAND, relays this process's stdin to the child's stdin and the child's stdout
to this process's stdout line by line, and appends every line to LOGFILE prefixed with
"C>S " (client to server) or "S>C " (server to client). The child's stderr goes to
LOGFILE.stderr.
"""

import os
import subprocess
import sys
import threading


def main() -> int:
    if len(sys.argv) < 4 or sys.argv[2] != "--":
        print("usage: wirelog.py LOGFILE -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    log_path, cmd = sys.argv[1], sys.argv[3:]
    log = open(log_path, "a", buffering=1, encoding="utf-8")
    lock = threading.Lock()

    def record(prefix: str, line: bytes) -> None:
        with lock:
            log.write(prefix + line.decode("utf-8", "replace").rstrip("\r\n") + "\n")

    errlog = open(log_path + ".stderr", "ab")
    child = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=errlog)

    def pump_in() -> None:
        stdin = sys.stdin.buffer
        try:
            for line in iter(stdin.readline, b""):
                record("C>S ", line)
                child.stdin.write(line)
                child.stdin.flush()
        except (BrokenPipeError, OSError):
            pass
        finally:
            try:
                child.stdin.close()
            except OSError:
                pass

    threading.Thread(target=pump_in, daemon=True).start()
    out = sys.stdout.buffer
    try:
        for line in iter(child.stdout.readline, b""):
            record("S>C ", line)
            out.write(line)
            out.flush()
    except (BrokenPipeError, OSError):
        pass
    rc = child.wait()
    log.close()
    errlog.close()
    return rc


if __name__ == "__main__":
    sys.exit(main())
