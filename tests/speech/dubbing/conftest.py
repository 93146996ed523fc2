"""Fixtures of the dubbing tests."""

from __future__ import annotations

import pytest

from soundstage.config import Settings


@pytest.fixture(autouse=True)
def local_media(settings: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    """The request fetches the media itself: from the test's file server on 127.0.0.1."""
    monkeypatch.setattr(settings, "fetch_allow_hosts", ["127.0.0.1"])
