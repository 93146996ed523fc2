"""Fixtures of the speech tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.servers import FileServer


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("files"))
    yield server
    server.server.shutdown()
