"""The errors engines raise, whatever the engine: missing or stuck (503), or unable to make
something of this input (422)."""

from __future__ import annotations

from soundstage.core.errors import AppError


class EngineUnavailable(AppError):
    """The engine (its program or model) is missing or did not answer: not the user's fault."""

    status = 503
    type = "api_error"
    code = "engine_unavailable"


class SynthesisFailed(AppError):
    """The engine could not speak this text (nothing speakable in it, or it failed on it)."""

    status = 422
    code = "synthesis_failed"


class UnknownVoice(SynthesisFailed):
    """The voice's speech engine has no such voice on this server (a catalog voice whose
    engine voice is not installed)."""

    code = "voice_unavailable"
