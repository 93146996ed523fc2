"""Where a test run's CPU goes, per test and per module: a pytest plugin, off unless asked for.

    .venv/bin/pytest -n 2 --dist loadfile -p tests.support.cpu_probe
    .venv/bin/python -m tests.support.cpu_probe        # the modules, most CPU first

Each test's CPU is what its test process spent (RUSAGE_SELF), plus what every process started
from it spent meanwhile: those that ended (RUSAGE_CHILDREN) and those still running (read from
/proc: the shared job worker, a module's server, their job processes). `--durations` tells
wall time only, and a test waiting on the shared worker shows its seconds, not the cores the
worker's two processes took meanwhile; RUSAGE_CHILDREN alone counts a process only once it is
reaped (the shared worker's whole life in whichever test stops it). A process that leaves its
parent (a daemon) is not followed.

Every test process writes its rows to `OUT` (one JSON file per xdist worker) at its end."""

from __future__ import annotations

import json
import os
import resource
import sys
import time
from collections import defaultdict
from collections.abc import Generator
from pathlib import Path
from typing import Final

import pytest

OUT: Final = Path(os.environ.get("SOUNDSTAGE_CPU_PROBE_DIR", "build/cpu-probe"))
_TICK: Final = os.sysconf("SC_CLK_TCK")
# nodeid, wall seconds, CPU seconds of the test process, of the processes started from it
_rows: list[tuple[str, float, float, float]] = []


def _stat(pid: str) -> tuple[int, float] | None:
    """The parent and the CPU seconds (own and reaped children's) of a running process."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[1]), sum(int(f) for f in fields[11:15]) / _TICK


def _descendants_cpu(root: int) -> float:
    """CPU seconds of the running descendants of `root` (each with its reaped children)."""
    stats = {int(p): s for p in os.listdir("/proc") if p.isdigit() and (s := _stat(p))}
    children: dict[int, list[int]] = defaultdict(list)
    for pid, (parent, _) in stats.items():
        children[parent].append(pid)
    total, stack = 0.0, list(children[root])
    while stack:
        pid = stack.pop()
        total += stats[pid][1]
        stack += children[pid]
    return total


def _cpu() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF)
    ended = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = ended.ru_utime + ended.ru_stime + _descendants_cpu(os.getpid())
    return own.ru_utime + own.ru_stime, started


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item) -> Generator[None]:
    began, (own, started) = time.monotonic(), _cpu()
    yield
    own_after, started_after = _cpu()
    _rows.append((item.nodeid, time.monotonic() - began, own_after - own, started_after - started))


def pytest_sessionfinish() -> None:
    if not _rows:
        return
    OUT.mkdir(parents=True, exist_ok=True)
    name = os.environ.get("PYTEST_XDIST_WORKER", "main")
    (OUT / f"{name}.json").write_text(json.dumps(_rows))


def report(folder: Path, limit: int) -> list[str]:
    """The modules of the rows in `folder`, most CPU first, and the whole run's sums."""
    modules: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0.0, 0.0])
    for path in sorted(folder.glob("*.json")):
        for nodeid, wall, own, started in json.loads(path.read_text()):
            sums = modules[nodeid.split("::", 1)[0]]
            for i, value in enumerate((wall, own, started, 1)):
                sums[i] += value
    total = [sum(s[i] for s in modules.values()) for i in range(4)]
    lines = [
        f"{int(total[3])} tests: {total[0]:.0f} s of test time, CPU {total[1]:.0f} s in the "
        f"test processes and {total[2]:.0f} s in processes they started",
        f"{'wall':>7} {'own':>7} {'started':>7} {'tests':>5}  module",
    ]
    ranked = sorted(modules.items(), key=lambda kv: -(kv[1][1] + kv[1][2]))
    for module, (wall, own, started, tests) in ranked[:limit]:
        lines.append(f"{wall:7.1f} {own:7.1f} {started:7.1f} {int(tests):5d}  {module}")
    return lines


if __name__ == "__main__":
    shown = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    print("\n".join(report(OUT, shown)))
