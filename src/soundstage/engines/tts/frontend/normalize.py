"""Normalization: written text to the words a reader says, per language."""

from __future__ import annotations

import re

from soundstage.engines.tts.frontend.script import Span

_TOKEN = re.compile(r"\S+")


def expand(text: str, language: str, *, offset: int = 0) -> list[Span]:
    """The spans reading plain `text` (no markup) in `language` (BCP-47), in order; each
    span's start/end are offsets into `text` plus `offset`. (Placeholder: every
    whitespace-separated token read as written.)"""
    del language
    return [
        Span(offset + match.start(), offset + match.end(), match.group())
        for match in _TOKEN.finditer(text)
    ]
