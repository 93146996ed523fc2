"""Errors of dubbing."""

from __future__ import annotations

from soundstage.core.errors import NotFound


class LanguagePairNotFound(NotFound):
    """No such dubbing language pair (a list cursor such as `de:en`)."""

    code = "language_pair_not_found"
