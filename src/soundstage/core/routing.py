"""The route class of every HTTP router: a synchronous endpoint runs on one thread, in one
unit of work that begins and ends there.

FastAPI runs a synchronous endpoint on a worker thread, then validates its answer on another
(a second wait for the thread pool), and commits a yielded session on a third. A request that
has taken a database connection on the first would hold it while it waits for the second:
once the pool's connections are all held by requests waiting for threads, and the threads all
wait for connections, nothing moves (the wedge of issue 36). Here the endpoint, its commit
(or rollback) and its `after_commit` callbacks run in one thread hop, so a connection is
never held across a wait for a thread; the answer is then validated on the event loop (FastAPI
treats the wrapped endpoint as a coroutine), a few microseconds of pydantic.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Callable
from typing import Any, Final

from fastapi.routing import APIRoute
from sqlalchemy.orm import Session
from starlette.concurrency import run_in_threadpool

from soundstage.core.db import abandon, finish

# The native API's root: every feature's router prefix starts with it (CONTRIBUTING.md).
API_V1: Final = "/api/v1"

# Marks the request's own session (core.deps.request_session) in `Session.info`.
REQUEST_UNIT = "soundstage_request_unit"


def is_request_unit(value: object) -> bool:
    return isinstance(value, Session) and bool(value.info.get(REQUEST_UNIT))


class UnitOfWorkRoute(APIRoute):
    """Every router's `route_class` (tests/core/test_routing.py checks it)."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **kwargs: Any) -> None:
        if not _runs_on_the_loop(endpoint):
            endpoint = in_one_thread_hop(endpoint)
        super().__init__(path, endpoint, **kwargs)


def _runs_on_the_loop(endpoint: Callable[..., Any]) -> bool:
    # Generators are FastAPI's streaming endpoints: it iterates them itself.
    return (
        inspect.iscoroutinefunction(endpoint)
        or inspect.isgeneratorfunction(endpoint)
        or inspect.isasyncgenfunction(endpoint)
    )


def in_one_thread_hop(endpoint: Callable[..., Any]) -> Callable[..., Any]:
    """`endpoint` as a coroutine that runs it, then commits the request's session (or rolls
    it back if it raised), on one worker thread."""

    @functools.wraps(endpoint)
    async def run(**values: Any) -> Any:
        units = list({id(v): v for v in values.values() if is_request_unit(v)}.values())
        return await run_in_threadpool(_call_and_end, endpoint, values, units)

    return run


def _call_and_end(
    endpoint: Callable[..., Any], values: dict[str, Any], units: list[Session]
) -> Any:
    try:
        try:
            result = endpoint(**values)
        except BaseException:
            for unit in units:
                abandon(unit)
            raise
        for unit in units:
            finish(unit)
        return result
    finally:
        for unit in units:
            unit.close()
