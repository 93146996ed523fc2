"""The order in which test modules go to the test processes: those on the shared job worker
first, then the others, each longest first.

pytest-xdist (`--dist loadfile`) hands out whole modules in the order it is given them, and
each process takes the next one when it is done. Its own order (`--loadscope-reorder`, most
tests first) left modules of one long test (the OpenAPI fuzzing, 70 s) to the end, where one
process ran it while the other sat idle. Longest first (the classic LPT schedule) ends with
short modules, so the two processes finish close together.

The seconds are measured, per module and per pass (`sqlite`: `make test`; `services`: CI's
second pass against PostgreSQL, Redis and S3), from one pass's run with `--durations=0`:

    .venv/bin/pytest -n 2 --dist loadfile --durations=0 > /tmp/durations.log
    .venv/bin/python -m tests.support.schedule sqlite /tmp/durations.log

A module the report leaves out (all its tests under `--durations-min`) counts as 0 s. Stale
figures only make the schedule less good, never a test wrong; a module added since counts as
`UNMEASURED_SECONDS` until measured."""

from __future__ import annotations

import json
import re
import sys
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Final

import pytest

SECONDS: Final = Path(__file__).with_name("module_seconds.json")
ROOT: Final = Path(__file__).resolve().parents[2]
PASSES: Final = ("sqlite", "services")
# A module not measured yet: about a middling one's time (most take 1 to 10 s).
UNMEASURED_SECONDS: Final = 5.0
DURATION: Final = re.compile(r"^([0-9.]+)s (?:setup|call|teardown)\s+([^:\s]+\.py)::")


def measured(pass_name: str) -> dict[str, float]:
    """Seconds per module path (relative to the repository root) in that pass."""
    figures: dict[str, dict[str, float]] = json.loads(SECONDS.read_text())
    return {
        module: seconds[pass_name] for module, seconds in figures.items() if pass_name in seconds
    }


def longest_first(items: list[pytest.Item], seconds: dict[str, float]) -> None:
    """Reorder `items` in place: first the modules that run on the shared job worker (their
    first test asks for `worker`), then the others, each group longest first. A module's
    tests stay together and in their order; ties keep the collection's order.

    The shared worker keeps its models loaded from one such module to the next and is stopped
    before any other module (tests/conftest.py): together, a test process starts it once,
    not once for each run of them between other modules."""
    first: dict[str, pytest.Item] = {}
    for item in items:
        first.setdefault(_module(item), item)

    def key(item: pytest.Item) -> tuple[bool, float]:
        module = _module(item)
        head = first[module]
        own = callable(getattr(getattr(head, "module", None), "worker", None))
        shared = "worker" in getattr(head, "fixturenames", ()) and not own
        return (not shared, -seconds.get(module, UNMEASURED_SECONDS))

    items.sort(key=key)


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def record(pass_name: str, log: Path) -> dict[str, float]:
    """Sum a `--durations=0` report per module, and store the sums as that pass's seconds."""
    sums: dict[str, float] = defaultdict(float)
    for line in log.read_text().splitlines():
        match = DURATION.match(line)
        if match:
            sums[match[2]] += float(match[1])
    for path in (ROOT / "tests").rglob("test_*.py"):
        sums.setdefault(path.relative_to(ROOT).as_posix(), 0.0)
    figures: dict[str, dict[str, float]] = (
        json.loads(SECONDS.read_text()) if SECONDS.exists() else {}
    )
    for seconds in figures.values():
        seconds.pop(pass_name, None)
    for module, total in sums.items():
        figures.setdefault(module, {})[pass_name] = round(total, 1)
    figures = {module: seconds for module, seconds in sorted(figures.items()) if seconds}
    lines = [f"{json.dumps(module)}: {json.dumps(seconds)}" for module, seconds in figures.items()]
    SECONDS.write_text("{\n" + ",\n".join(lines) + "\n}\n")
    return dict(sums)


def main(argv: Sequence[str]) -> None:
    if len(argv) != 2 or argv[0] not in PASSES:
        raise SystemExit(f"usage: python -m tests.support.schedule {{{'|'.join(PASSES)}}} LOG")
    sums = record(argv[0], Path(argv[1]))
    print(f"{len(sums)} modules, {sum(sums.values()):.0f} s in all, written to {SECONDS}")


if __name__ == "__main__":
    main(sys.argv[1:])
