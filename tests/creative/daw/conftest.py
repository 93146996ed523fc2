"""Fixtures of the DAW export tests: the inputs' file server on loopback HTTP (the export driven
through the API and the stems decoded back are in `tests/support/daw.py`)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.servers import FileServer


@pytest.fixture(autouse=True)
def fetched_from_loopback(local_media: None) -> None:
    """The export fetches its tracks at submit: from the test's file server on 127.0.0.1."""


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> Iterator[FileServer]:
    server = FileServer(tmp_path_factory.mktemp("daw-inputs"))
    yield server
    server.server.shutdown()
