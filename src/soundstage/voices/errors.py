"""Errors of the voice catalog."""

from soundstage.core.errors import NotFound


class VoiceNotFound(NotFound):
    code = "voice_not_found"
