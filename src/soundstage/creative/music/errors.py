"""Errors of music generation."""

from __future__ import annotations

from soundstage.core.errors import InvalidField


class VoiceNotSupported(InvalidField):
    """The singing `voice_id` does not speak English (the lyrics are English)."""

    code = "voice_not_supported"
