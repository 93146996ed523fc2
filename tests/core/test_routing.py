"""core.routing: every HTTP route runs a synchronous endpoint and its unit of work on one
thread, and only endpoints take the request's session, so a database connection is never
held while its request waits for a thread (the wedge of issue 36)."""

from __future__ import annotations

import inspect
import threading
from collections.abc import Iterator
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.routing import APIRoute, iter_route_contexts
from fastapi.testclient import TestClient
from sqlalchemy import text

from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database, after_commit
from soundstage.core.deps import PrincipalDep, SessionDep, request_session
from soundstage.core.routing import UnitOfWorkRoute
from tests.support.factories import Customer


def http_routes(app: FastAPI) -> list[APIRoute]:
    """Every HTTP route the app serves, those of its included routers too (FastAPI keeps an
    included router whole in `app.routes`)."""
    routes = [c.original_route for c in iter_route_contexts(app.routes)]
    found = [route for route in routes if isinstance(route, APIRoute)]
    assert len(found) > 60
    return found


def test_every_route_is_a_unit_of_work_route(app: FastAPI) -> None:
    others = [r.path for r in http_routes(app) if not isinstance(r, UnitOfWorkRoute)]
    assert others == []


def sub_dependencies(dependant: Dependant) -> Iterator[Dependant]:
    for sub in dependant.dependencies:
        yield sub
        yield from sub_dependencies(sub)


def test_only_endpoints_take_the_request_session(app: FastAPI) -> None:
    """A dependency runs on a thread hop of its own: one that took the request's session
    would hold its connection while the endpoint waits for a thread."""
    takers = {
        f"{route.path}: {getattr(sub.call, '__name__', sub.call)}"
        for route in http_routes(app)
        for sub in sub_dependencies(route.dependant)
        if any(inner.call is request_session for inner in sub.dependencies)
    }
    assert takers == set()


def test_no_asynchronous_endpoint_takes_the_request_session(app: FastAPI) -> None:
    """Its unit of work would run on the event loop and never be ended."""
    takers = [
        route.path
        for route in http_routes(app)
        if inspect.iscoroutinefunction(inspect.unwrap(route.endpoint))
        and any(sub.call is request_session for sub in route.dependant.dependencies)
    ]
    assert takers == []


def test_the_endpoint_and_its_commit_run_on_one_thread_and_free_the_connection(
    settings: Settings, customer: Customer
) -> None:
    app = create_app(settings)
    db: Database = app.state.db
    seen: dict[str, Any] = {}

    @app.post("/api/v1/probe-unit")
    def probe(session: SessionDep, principal: PrincipalDep) -> dict[str, int]:
        seen["endpoint"] = threading.get_ident()
        session.execute(text("SELECT 1"))
        after_commit(session, lambda: seen.setdefault("commit", threading.get_ident()))
        return {"checked_out": db.engine.pool.checkedout()}  # type: ignore[attr-defined]

    with TestClient(app) as client:
        response = client.post("/api/v1/probe-unit", headers=customer.auth())
        assert response.status_code == 200
        # Back in the pool before the answer goes out.
        assert db.engine.pool.checkedout() == 0  # type: ignore[attr-defined]
    assert response.json()["checked_out"] == 1
    assert seen["commit"] == seen["endpoint"]
