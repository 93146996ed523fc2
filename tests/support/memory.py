"""A process's peak memory as a bound on a job or a request: how far its resident set grew at
its peak (VmHWM, reset through /proc/PID/clear_refs, which needs root), less the pages of
mapped files it read back.

Those pages (shared libraries, model files) are not the work's: the kernel drops them from an
idle process whenever it needs the memory, and the process reads them again as it next runs
their code. On a machine that reclaims cold pages all the time (DAMON's pageout, as CI's
does), a request refused before any work read back 130 MiB of them. What a job allocates is
anonymous memory, which comes on top."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

# A process is settled when its anonymous memory moved less than this over _SETTLED_SECONDS.
_SETTLED_KIB = 1024
_SETTLED_SECONDS = 1.0


def status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{field}:"):
            return int(line.split()[1])
    raise KeyError(field)


@dataclass(frozen=True)
class Mark:
    pid: int
    rss_kib: int
    file_kib: int


def mark(pid: int) -> Mark:
    """Reset the process's peak to its resident set now, and note that set."""
    Path(f"/proc/{pid}/clear_refs").write_text("5")  # VmHWM := VmRSS
    return Mark(pid, status_kib(pid, "VmRSS"), status_kib(pid, "RssFile"))


def peak_growth_kib(since: Mark) -> int:
    """The growth of the process's peak since `since`, less what it read back of mapped files
    (their resident pages now over then: they stay once read)."""
    read_back = max(0, status_kib(since.pid, "RssFile") - since.file_kib)
    return status_kib(since.pid, "VmHWM") - since.rss_kib - read_back


def settle(pid: int, *, within: float = 20.0) -> None:
    """Wait (at most `within` seconds) until the process's anonymous memory stops moving: what
    it still does after the last job (the isolator's loader thread replaces the models a job
    used, in the background) is not the next job's. Seen once under CI's load: a request
    refused before any work measured 344 MiB of growth."""
    deadline = time.monotonic() + within
    last = status_kib(pid, "RssAnon")
    steady_since = time.monotonic()
    while time.monotonic() < deadline:
        time.sleep(0.2)
        now = status_kib(pid, "RssAnon")
        if abs(now - last) >= _SETTLED_KIB:
            last, steady_since = now, time.monotonic()
        elif time.monotonic() - steady_since >= _SETTLED_SECONDS:
            return
