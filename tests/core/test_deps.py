"""The shared dependencies: `DatabaseDep` and `SettingsDep` give an endpoint, HTTP or
WebSocket, the app's own database and settings, so that no endpoint reaches into
`request.app.state` (or `websocket.app.state`) itself. Reading `app.state` is an
attribute, not an import, which no import-linter contract sees: the endpoints' source is read
here."""

from __future__ import annotations

import ast
from pathlib import Path

from fastapi import WebSocket
from fastapi.testclient import TestClient

import soundstage
from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.deps import DatabaseDep, PrincipalDep, SettingsDep
from tests.support.factories import Customer

SOURCE = Path(soundstage.__file__).parent


def test_the_dependencies_are_the_apps_database_and_settings(
    settings: Settings, customer: Customer
) -> None:
    app = create_app(settings)

    @app.get("/api/v1/probe-deps")
    def probe(db: DatabaseDep, settings: SettingsDep, _: PrincipalDep) -> dict[str, bool]:
        return {"db": db is app.state.db, "settings": settings is app.state.settings}

    @app.websocket("/api/v1/probe-deps-ws")
    async def probe_ws(websocket: WebSocket, db: DatabaseDep, settings: SettingsDep) -> None:
        await websocket.accept()
        same = {"db": db is app.state.db, "settings": settings is app.state.settings}
        await websocket.send_json(same)
        await websocket.close()

    with TestClient(app) as client:
        response = client.get("/api/v1/probe-deps", headers=customer.auth())
        with client.websocket_connect("/api/v1/probe-deps-ws") as ws:
            over_websocket = ws.receive_json()
    assert response.json() == {"db": True, "settings": True}
    assert over_websocket == {"db": True, "settings": True}


def app_state_uses(source: str) -> list[int]:
    """The lines of `source` that read `<something>.app.state`."""
    return sorted(
        node.lineno
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.Attribute)
        and node.attr == "state"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "app"
    )


def test_no_endpoint_reaches_into_app_state() -> None:
    modules = sorted(SOURCE.rglob("*endpoints.py"))
    assert len(modules) > 10  # the scan sees the features
    # ... and the WebSocket endpoints (realtime_endpoints.py) with them.
    scanned = {path.relative_to(SOURCE).as_posix() for path in modules}
    assert {"speech/stt/realtime_endpoints.py", "speech/tts/realtime_endpoints.py"} <= scanned
    offenders = [
        f"{path.relative_to(SOURCE)}:{line}"
        for path in modules
        for line in app_state_uses(path.read_text())
    ]
    assert not offenders, "take DatabaseDep / SettingsDep (core/deps.py):\n" + "\n".join(offenders)


def test_the_scan_sees_app_state() -> None:
    assert app_state_uses("x = request.app.state.db\nstate = request.app.state\n") == [1, 2]
    assert app_state_uses("async def f(websocket):\n    db = websocket.app.state.db\n") == [2]
    assert app_state_uses("x = request.state.principal\ny = app_state\n") == []
