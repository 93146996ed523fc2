"""Fixtures of the MCP server's tests: a live `soundstage serve` (its /mcp) and a file server
for the audio the tools fetch."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from soundstage.config import Settings
from tests.support.processes import serve
from tests.support.servers import FileServer


@pytest.fixture(scope="module")
def server(settings: Settings) -> Iterator[str]:
    """A real `soundstage serve --no-worker` (the `worker` fixture does the jobs): its base
    URL."""
    yield from serve(settings)


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("files"))
    yield server
    server.server.shutdown()
