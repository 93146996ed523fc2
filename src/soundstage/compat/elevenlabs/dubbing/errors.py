"""Errors of ElevenLabs' dubbing."""

from __future__ import annotations

from soundstage.core.errors import NotFound


class DubbingNotFound(NotFound):
    """No such dub among the caller's (ElevenLabs-compatible dubbing), or none into that
    language."""

    code = "dubbing_not_found"
