"""The speech-to-text models by name: created on first use and kept for the life of the process
in the model cache (engines.cache), so that a model loads once per worker process, never per
request."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from soundstage.config import Settings, get_settings
from soundstage.engines.cache import MODELS
from soundstage.engines.transcribers.base import Transcriber, TranscriberUnavailable, UnknownModel
from soundstage.engines.transcribers.models import TINY_EN, WHISPER_BASE

TranscriberFactory = Callable[[Settings], Transcriber]


# The factories import faster-whisper only when called: importing the registry must not load
# CTranslate2, and a model whose package is missing is just unavailable.
def _whisper_base(settings: Settings) -> Transcriber:
    from soundstage.engines.transcribers.models import whisper_base_dir
    from soundstage.engines.transcribers.whisper import WhisperTranscriber

    directory = whisper_base_dir(settings.data_dir)
    # The bundled models' encoder on short windows (engines.transcribers.whisper.
    # encoder_frames): the same words for less than half the CPU time on recordings under
    # 20 s (bench/stt_short_window.py). A deployment's own model, not measured so, keeps
    # Whisper's whole window.
    return WhisperTranscriber.load(WHISPER_BASE, directory, settings.stt, short_windows=True)


def _tiny_en(settings: Settings) -> Transcriber:
    from soundstage.engines.transcribers.models import tiny_en_dir
    from soundstage.engines.transcribers.whisper import WhisperTranscriber

    return WhisperTranscriber.load(TINY_EN, tiny_en_dir(), settings.stt, short_windows=True)


def _configured(directory: Path) -> TranscriberFactory:
    def load(settings: Settings) -> Transcriber:
        from soundstage.engines.transcribers.whisper import WhisperTranscriber

        return WhisperTranscriber.load(directory.name, directory, settings.stt)

    return load


_KIND = "speech-to-text model"


def _factories(settings: Settings) -> dict[str, TranscriberFactory]:
    factories: dict[str, TranscriberFactory] = {WHISPER_BASE: _whisper_base, TINY_EN: _tiny_en}
    if settings.stt.model_dir is not None:
        # Under its directory's name; a deployment's model of a bundled name replaces it.
        directory = settings.stt.model_dir
        factories[directory.name] = _configured(directory)
    return factories


def transcriber_names(settings: Settings | None = None) -> list[str]:
    """The names get_transcriber() knows: the bundled models, then the configured one."""
    return list(_factories(settings or get_settings()))


def get_transcriber(name: str | None = None, *, settings: Settings | None = None) -> Transcriber:
    """The process's one instance of the named model (default: settings.stt.default_model).

    settings (default: get_settings()) are read only when the instance is created. Raises
    UnknownModel for a name no model has, TranscriberUnavailable when the model cannot be
    loaded (a failure is not remembered: the next call tries again).
    """
    settings = settings or get_settings()
    chosen = name or settings.stt.default_model
    return MODELS.get(_KIND, chosen, lambda: _create(chosen, settings))


def _create(name: str, settings: Settings) -> Transcriber:
    factory = _factories(settings).get(name)
    if factory is None:
        raise UnknownModel(f"There is no speech-to-text model named {name!r}.")
    try:
        return factory(settings)
    except ImportError as exc:
        raise TranscriberUnavailable(
            f"The speech-to-text model {name} is not installed: {exc}."
        ) from exc
    except OSError as exc:
        raise TranscriberUnavailable(
            f"The speech-to-text model {name} could not be prepared: {exc}."
        ) from exc
