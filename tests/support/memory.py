"""A process's peak memory as a bound on a job or a request: how far its resident set grew at
its peak (VmHWM, reset through /proc/PID/clear_refs, which needs root), less the pages of
mapped files it read back.

Those pages (shared libraries, model files) are not the work's: the kernel drops them from an
idle process whenever it needs the memory, and the process reads them again as it next runs
their code. On a machine that reclaims cold pages all the time (DAMON's pageout, as CI's
does), a request refused before any work read back 130 MiB of them. What a job allocates is
anonymous memory, which comes on top."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


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
