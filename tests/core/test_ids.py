"""Request ids: unique across the processes a server forks, drawn without a system call."""

from __future__ import annotations

import os
import re

from soundstage.core.ids import request_token


def _ids(count: int) -> list[str]:
    return [request_token(20) for _ in range(count)]


def test_request_ids_are_20_base62_characters_and_unique() -> None:
    ids = _ids(10_000)
    assert all(re.fullmatch(r"[0-9A-Za-z]{20}", value) for value in ids)
    assert len(set(ids)) == len(ids)


def _forked_ids(count: int) -> set[str]:
    """The ids a forked child draws: written to a pipe, and the child ends at once (it takes
    no lock another thread of this process may have held at the fork)."""
    reading, writing = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child
        try:
            os.write(writing, " ".join(_ids(count)).encode())
        finally:
            os._exit(0)
    os.close(writing)
    chunks = []
    while chunk := os.read(reading, 65536):
        chunks.append(chunk)
    os.close(reading)
    os.waitpid(pid, 0)
    return set(b"".join(chunks).decode().split())


def test_forked_processes_draw_different_request_ids() -> None:
    # A pseudo-random generator copied by fork would repeat its parent's ids: the standard
    # library reseeds its generator in each child.
    request_token(20)  # the parent's generator in use before the fork
    first, second = _forked_ids(100), _forked_ids(100)
    assert len(first) == len(second) == 100
    assert not first & second
    assert not (first | second) & set(_ids(100))
