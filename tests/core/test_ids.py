"""Request ids: unique across a server's processes, drawn without a system call."""

from __future__ import annotations

import re
import subprocess
import sys

from soundstage.core.ids import request_token


def _ids(count: int) -> list[str]:
    return [request_token(20) for _ in range(count)]


def test_request_ids_are_20_base62_characters_and_unique() -> None:
    ids = _ids(10_000)
    assert all(re.fullmatch(r"[0-9A-Za-z]{20}", value) for value in ids)
    assert len(set(ids)) == len(ids)


def _ids_of_another_process(count: int) -> set[str]:
    """The ids a fresh process draws (an API process started by `serve`: uvicorn spawns its
    workers, each seeding its generator from the system at start)."""
    code = (
        "from soundstage.core.ids import request_token\n"
        f"print(*(request_token(20) for _ in range({count})))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return set(out.stdout.split())


def test_each_process_draws_its_own_request_ids() -> None:
    first, second = _ids_of_another_process(100), _ids_of_another_process(100)
    assert len(first) == len(second) == 100
    assert not first & second
    assert not (first | second) & set(_ids(100))
