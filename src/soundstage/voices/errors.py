"""Errors of the voice catalog."""

from soundstage.core.errors import NotFound


class VoiceNotFound(NotFound):
    """No such voice in the catalog (or it was retired)."""

    code = "voice_not_found"
