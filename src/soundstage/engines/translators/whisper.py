"""Whisper's own speech translation (task "translate"): speech in any of its ~99 languages
heard and written down in English, utterance by utterance. It listens to the audio rather
than reading the transcript, so transcription errors do not compound. whisper-base's English
is plain and sometimes loose; a bigger Whisper model configured for speech-to-text
(SOUNDSTAGE_STT__MODEL_DIR) is used here too."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any, Final

from soundstage.config import Settings
from soundstage.engines.speakers.audio16k import mono_16k
from soundstage.engines.transcribers.base import (
    bcp47_language,
    whisper_language,
    whisper_languages,
)
from soundstage.engines.translators.base import (
    LanguagePair,
    SourceUtterance,
    TranslatorUnavailable,
)

NAME: Final = "whisper"
TARGET: Final = "en"
_BEAM_SIZE: Final = 5


class WhisperSpeechTranslator:
    """The model is loaded on the first translation, not to list the pairs (the web process
    lists them and must not hold a model)."""

    name = NAME

    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._lock = threading.Lock()
        self._model: Any = None
        self._languages: frozenset[str] = frozenset()

    def pairs(self) -> list[LanguagePair]:
        # Every language of Whisper before large-v3 (no Cantonese): the bundled whisper-base.
        return [
            LanguagePair(bcp47_language(code), TARGET, NAME)
            for code in sorted(whisper_languages() - {"yue", TARGET})
        ]

    def translate(self, utterances: Sequence[SourceUtterance], pair: LanguagePair) -> list[str]:
        model, languages = self._loaded()
        code = whisper_language(pair.source, languages)
        out: list[str] = []
        for utterance in utterances:
            if utterance.speech is None or utterance.speech.frames == 0:
                raise ValueError("Whisper translates speech: each utterance needs its audio")
            out.append(_translated(model, mono_16k(utterance.speech), code))
        return out

    def _loaded(self) -> tuple[Any, frozenset[str]]:
        """The multilingual model speech-to-text uses (loaded once per process);
        TranscriberUnavailable if it cannot be."""
        from soundstage.engines.transcribers.models import WHISPER_BASE, whisper_base_dir
        from soundstage.engines.transcribers.whisper import load_model, model_languages

        with self._lock:
            if self._model is None:
                stt = self._settings.stt
                if stt.model_dir is not None:
                    name, directory = stt.model_dir.name, stt.model_dir
                else:
                    try:
                        directory = whisper_base_dir(self._settings.data_dir)
                    except (ImportError, OSError) as exc:
                        raise TranslatorUnavailable(f"whisper-base is missing: {exc}") from exc
                    name = WHISPER_BASE
                self._model = load_model(name, directory, cpu_threads=stt.cpu_threads)
                self._languages = model_languages(self._model)
            return self._model, self._languages


def _translated(model: Any, samples: Any, code: str) -> str:
    try:
        segments, _ = model.transcribe(
            samples,
            language=code,
            task="translate",
            beam_size=_BEAM_SIZE,
            condition_on_previous_text=False,
        )
        return " ".join(" ".join(segment.text for segment in segments).split())
    except RuntimeError as exc:
        raise TranslatorUnavailable(f"Whisper's translation failed: {exc}") from exc
