"""CONTRIBUTING.md's route table is the map from a URL to the module that serves it: every
route the app serves, HTTP or WebSocket, is placed by its longest listed prefix (whole path
segments), in the module the row names, and no row is left that no route uses. Each router
declares its own prefix, so the map is also read in the endpoints file itself. Routes and
prefixes are facts of the running app and of `app.py`'s calls, not imports: import-linter has
no say in them."""

from __future__ import annotations

import ast
import importlib
import inspect
import re
from pathlib import Path
from typing import TypeGuard

from fastapi import APIRouter, FastAPI, WebSocket
from fastapi.routing import APIRoute, APIWebSocketRoute, iter_route_contexts
from starlette.routing import BaseRoute, Route, WebSocketRoute
from starlette.types import Receive, Scope, Send

import soundstage
from tests.support.processes import REPO_ROOT

SOURCE = Path(soundstage.__file__).parent

ROW = re.compile(r"^\| (?P<prefixes>`/.*`) \| `(?P<module>[a-z_.]+)`")


def table() -> dict[str, str]:
    """Prefix -> module (dotted, below `soundstage`), as CONTRIBUTING.md lists them."""
    text = (REPO_ROOT / "CONTRIBUTING.md").read_text()
    block = text.split("<!-- routes:start -->")[1].split("<!-- routes:end -->")[0]
    rows: dict[str, str] = {}
    for line in block.splitlines():
        if match := ROW.match(line):
            for prefix in re.findall(r"`(/[^`]*)`", match["prefixes"]):
                assert prefix not in rows, f"{prefix} is listed twice"
                rows[prefix] = match["module"]
    return rows


def served(app: FastAPI) -> dict[str, str]:
    """Path -> the module (below `soundstage`) whose endpoint serves it: the API's routes and
    WebSockets, and a protocol's transport that is an ASGI app of its own (/mcp); not the
    documentation pages (plain Starlette `Route`s of functions)."""
    found: dict[str, str] = {}
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute | APIWebSocketRoute | WebSocketRoute) or serves_an_app(route):
            module = route.endpoint.__module__.removeprefix("soundstage.")
            found[context.path or route.path] = module.removesuffix(".endpoints")
    return found


def serves_an_app(route: BaseRoute) -> TypeGuard[Route]:
    """A plain route whose endpoint is an ASGI app (an object: its class's module names it),
    not a function answering a request."""
    return isinstance(route, Route) and not inspect.isroutine(route.endpoint)


def placed(path: str, rows: dict[str, str]) -> str | None:
    """The longest listed prefix of `path` by whole segments."""
    segments = path.split("/")
    for end in range(len(segments), 1, -1):
        prefix = "/".join(segments[:end])
        if prefix in rows:
            return prefix
    return None


def test_every_route_is_served_where_the_table_says(app: FastAPI) -> None:
    rows = table()
    routes = served(app)
    assert len(routes) > 60  # every route of the API, not the documentation pages only
    wrong = {
        path: (module, rows.get(placed(path, rows) or ""))
        for path, module in routes.items()
        if rows.get(placed(path, rows) or "") != module
    }
    assert not wrong, f"served from (module, listed module): {wrong}"


def test_websocket_routes_are_placed_too(app: FastAPI) -> None:
    """The realtime WebSockets are in the map, and a WebSocket served from the wrong module
    would be found like any route."""
    routes = served(app)
    assert routes["/api/v1/speech/stt/realtime"] == "speech.stt.realtime_endpoints"
    assert routes["/api/v1/speech/tts/realtime"] == "speech.tts.realtime_endpoints"
    probe = FastAPI()

    @probe.websocket("/api/v1/speech/tts/realtime/elsewhere")
    async def elsewhere(websocket: WebSocket) -> None:
        await websocket.close()

    path = "/api/v1/speech/tts/realtime/elsewhere"
    assert served(probe) == {path: __name__}
    rows = table()
    assert rows[placed(path, rows) or ""] == "speech.tts.realtime_endpoints" != __name__


class ProbeTransport:
    """An ASGI app served by a route, as the MCP transport is."""

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raise NotImplementedError


def test_a_route_serving_an_asgi_app_is_placed_too(app: FastAPI) -> None:
    """/mcp (an ASGI app, not a function) is in the map; one served from the wrong module
    would be found like any route; the documentation pages are not routes of the API."""
    routes = served(app)
    assert routes["/mcp"] == "mcp_server"
    assert not {"/docs", "/redoc", "/openapi.json"} & set(routes)
    probe = FastAPI()
    path = "/api/v1/voices/elsewhere"
    probe.router.routes.append(Route(path, ProbeTransport()))
    assert served(probe) == {path: __name__}
    rows = table()
    assert rows[placed(path, rows) or ""] == "voices" != __name__


def test_every_row_places_a_route(app: FastAPI) -> None:
    rows = table()
    used = {placed(path, rows) for path in served(app)}
    assert set(rows) - used == set()


def test_placing_is_by_whole_segments() -> None:
    rows = {"/api/v1/workforce/campaign": "a", "/api/v1/jobs": "b"}
    assert placed("/api/v1/workforce/campaigns/x", rows) is None
    assert placed("/api/v1/workforce/campaign", rows) == "/api/v1/workforce/campaign"
    assert placed("/api/v1/jobs/{job_id}/cancel", rows) == "/api/v1/jobs"


# Routers at the root of the URL space, whose routes share no first segment.
ROOT_ROUTERS = {"ops.endpoints.router"}


def routers() -> dict[str, APIRouter]:
    """Every router of every endpoints module, by dotted name below `soundstage`."""
    found: dict[str, APIRouter] = {}
    for path in sorted(SOURCE.rglob("*endpoints.py")):
        module_name = ".".join(path.relative_to(SOURCE.parent).with_suffix("").parts)
        module = importlib.import_module(module_name)
        for name, value in vars(module).items():
            if isinstance(value, APIRouter):
                found[f"{module_name.removeprefix('soundstage.')}.{name}"] = value
    return found


def test_every_router_carries_its_prefix() -> None:
    """The URL-to-file map is read in each endpoints file: its router declares the prefix
    (`/api/v1` included) and its routes are relative to it."""
    found = routers()
    assert len(found) > 25
    assert sum(len(router.routes) for router in found.values()) > 100
    unprefixed = sorted(name for name, router in found.items() if not router.prefix)
    assert unprefixed == sorted(ROOT_ROUTERS)
    outside = {
        name: route.path
        for name, router in found.items()
        for route in router.routes
        if isinstance(route, APIRoute | APIWebSocketRoute)
        and not (route.path == router.prefix or route.path.startswith(router.prefix + "/"))
    }
    assert outside == {}


def test_the_app_adds_no_prefix() -> None:
    """Routers are included at the app itself (not nested: FastAPI matches a router included
    in a router twice per request) and as they are, so their own prefix is the whole one."""
    tree = ast.parse((SOURCE / "app.py").read_text())
    includes = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "include_router"
    ]
    assert len(includes) > 25
    assert [ast.unparse(node) for node in includes if node.keywords] == []
    assert {ast.unparse(node.func).removesuffix(".include_router") for node in includes} == {"app"}
