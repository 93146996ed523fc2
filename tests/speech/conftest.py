"""Fixtures of the speech tests."""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest
import uvicorn
from fastapi import FastAPI

from tests.support.processes import free_port, wait_for_port
from tests.support.servers import FileServer


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("files"))
    yield server
    server.server.shutdown()


@pytest.fixture(scope="module")
def server(app: FastAPI) -> Iterator[str]:
    """The app served by uvicorn on a free port, in a thread of this process."""
    port = free_port()
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning", lifespan="off")
    instance = uvicorn.Server(config)
    thread = threading.Thread(target=instance.run, daemon=True)
    thread.start()
    wait_for_port(port)
    yield f"http://127.0.0.1:{port}"
    instance.should_exit = True
    thread.join(10)
