"""Fixtures of the dubbing tests."""

from __future__ import annotations

import pytest


@pytest.fixture(autouse=True)
def fetched_from_loopback(local_media: None) -> None:
    """The request fetches the media itself: from the test's file server on 127.0.0.1."""
