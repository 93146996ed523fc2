"""CONTRIBUTING.md's route table is the map from a URL to the module that serves it: every
route the app serves is placed by its longest listed prefix (whole path segments), in the
module the row names, and no row is left that no route uses."""

from __future__ import annotations

import re

from fastapi import FastAPI
from fastapi.routing import APIRoute, iter_route_contexts

from tests.support.processes import REPO_ROOT

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
    """Path -> the module (below `soundstage`) whose endpoint serves it."""
    found: dict[str, str] = {}
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute):
            module = route.endpoint.__module__.removeprefix("soundstage.")
            found[context.path or route.path] = module.removesuffix(".endpoints")
    return found


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


def test_every_row_places_a_route(app: FastAPI) -> None:
    rows = table()
    used = {placed(path, rows) for path in served(app)}
    assert set(rows) - used == set()


def test_placing_is_by_whole_segments() -> None:
    rows = {"/api/v1/workforce/campaign": "a", "/api/v1/jobs": "b"}
    assert placed("/api/v1/workforce/campaigns/x", rows) is None
    assert placed("/api/v1/workforce/campaign", rows) == "/api/v1/workforce/campaign"
    assert placed("/api/v1/jobs/{job_id}/cancel", rows) == "/api/v1/jobs"
