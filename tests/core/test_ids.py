"""Request ids: unique across the processes a server forks, drawn without a system call."""

from __future__ import annotations

import multiprocessing
import re

from soundstage.core.ids import request_token


def _ids(count: int) -> list[str]:
    return [request_token(20) for _ in range(count)]


def test_request_ids_are_20_base62_characters_and_unique() -> None:
    ids = _ids(10_000)
    assert all(re.fullmatch(r"[0-9A-Za-z]{20}", value) for value in ids)
    assert len(set(ids)) == len(ids)


def test_forked_processes_draw_different_request_ids() -> None:
    # A pseudo-random generator copied by fork would repeat its parent's ids: the standard
    # library reseeds its generator in each child.
    request_token(20)  # the parent's generator in use before the fork
    context = multiprocessing.get_context("fork")
    with context.Pool(2) as pool:
        children = pool.map(_ids, [100, 100])
    parent = set(_ids(100))
    assert not set(children[0]) & set(children[1])
    assert not (set(children[0]) | set(children[1])) & parent
