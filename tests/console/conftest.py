"""Fixtures for the console's browser tests: one live server and one Chromium per test file
(files run whole in one test process), a fresh watched tab per test."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Browser

from tests.support.console import ConsolePage, ConsoleServer, chromium, console_page, console_server


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[ConsoleServer]:
    with console_server(tmp_path_factory.mktemp("console")) as live:
        yield live


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def console(server: ConsoleServer, browser: Browser) -> Iterator[ConsolePage]:
    """A fresh tab (fresh session storage: signed out) on the live console. The server is
    asked for first so that it stops last: with the browser gone, no open connection keeps
    its graceful stop waiting (30 s)."""
    with console_page(browser, server) as tab:
        yield tab
