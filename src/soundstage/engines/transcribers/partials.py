"""Partial transcripts of live speech decoded together: the partials that several realtime
sessions ask at about the same time run as one CTranslate2 call (one encoder batch, one greedy
decoder batch). A partial decoder is bound by its steps, each a product of one vector by the
51,864-token vocabulary; in a batch each step is a product of matrices, which the cores do far
more efficiently: 8 sessions' partials of 6 s take half the time they take one at a time, with
the same text token for token (bench/partial_batching.py).

A partial is decoded as faster-whisper's `transcribe` decodes one window (its prompt, its
suppressed tokens, its no-speech test), greedily and without timestamps, its encoder given the
audio and 2 s of padding, at least 6 s (engines/transcribers/short_encoder.py); in a batch
every window is padded to the longest one's length. Two limits of CTranslate2's batches shape
what a partial is given: every prompt must put the start of the transcript at the same place,
so a partial is prompted with the last 32 tokens of its session's text (or all of it, fewer
there), and a batch holds partials prompted alike."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Final, Protocol

import numpy as np
import numpy.typing as npt

from soundstage.engines.transcribers.base import TranscriberUnavailable

if TYPE_CHECKING:  # faster-whisper (and CTranslate2) load with the model: not in an API process
    from faster_whisper import WhisperModel

Samples = npt.NDArray[np.float32]

# Whisper's mel frames: 100 a second, 160 samples each.
HOP: Final = 160
# The encoder is given the audio and 2 s of padding, at least 6 s (short_encoder.py).
_PADDING_FRAMES: Final = 200
_MIN_ENCODER_FRAMES: Final = 600
# The tokens of the session's text a partial is prompted with, at most: every prompt in a
# batch must be as long (CTranslate2), and a partial (soon replaced by the final) needs the
# recent context only; about 130 characters of English.
PROMPT_TOKENS: Final = 32
# Whisper writes about 4 tokens a second of read speech: a partial's whole text (its forced
# prefix too) may have at most 6 tokens a second plus 6, so that a looping decode is cut
# early. On the LibriVox clips a looping greedy partial ("... in his power to consider how
# much there might be ...") took 400-560 ms against 250 ms for its neighbours; each such delay
# is a gap between partials.
_TOKENS_PER_SECOND: Final = 6
_SPARE_TOKENS: Final = 6
# faster-whisper's defaults for one window: the first timestamp within 1 s, and a window
# whose no-speech probability is over 0.6 with an average log probability under -1 is silence.
_MAX_INITIAL_TIMESTAMP_INDEX: Final = 50
_NO_SPEECH: Final = 0.6
_LOW_LOG_PROBABILITY: Final = -1.0
# The partials one call decodes at most: a bound on its memory (the encoder's input and
# output of every window at once).
MAX_BATCH: Final = 16
# A batch's windows are padded to its longest: one holds partials whose encoder lengths are
# within this ratio of its shortest's. Padding costs the whole batch encoder time and changes
# the shorter windows' text (more silence after their speech), while a batch of 4 already
# saves nearly what a batch of 8 does (bench/partial_batching.py: tiny.en 1.7x both).
_LENGTH_RATIO: Final = 1.5


@dataclass(frozen=True)
class PartialRequest:
    """One partial to decode: the utterance's audio so far (16 kHz mono), its language
    (Whisper's code; None: detected on this audio), the text forced as the decode's start (the
    utterance's stable words) and the session's text before the utterance."""

    samples: Samples
    language: str | None
    prefix: str = ""
    prompt: str = ""


class PartialDecodes(Protocol):
    """Where a recognizer's partials are decoded: `submit` one, then `collect` its text (None
    while it is not ready, and when it was lost: the next partial is asked then). One partial
    is in flight at a time."""

    def submit(self, model: str, request: PartialRequest) -> bool:
        """Ask for a partial decoded by the named model; False when it cannot be asked."""

    def collect(self, wait: bool = False) -> str | None:
        """The partial's text once decoded (waited for, with `wait`, up to a bound)."""

    def pending(self) -> bool:
        """A partial was asked and its text has not been collected."""


class OptionalTurns(Protocol):
    """A turn at the cores for work that may be skipped (realtime.turns): granted (True) or
    not, at once."""

    def optional(self) -> AbstractContextManager[bool]: ...


class _Always:
    def optional(self) -> AbstractContextManager[bool]:
        return nullcontext(True)


class LocalPartials:
    """Partials decoded at once, in the caller's process, with the model its `load` gives,
    each when `turns` grant one (else it is not asked: submit is False)."""

    def __init__(
        self, load: Callable[[str], WhisperModel], turns: OptionalTurns | None = None
    ) -> None:
        self._load = load
        self._turns = turns or _Always()
        self._text: str | None = None
        self._asked = False

    def submit(self, model: str, request: PartialRequest) -> bool:
        with self._turns.optional() as granted:
            if not granted:
                return False
            self._text = decode_partials(self._load(model), [request])[0]
        self._asked = True
        return True

    def collect(self, wait: bool = False) -> str | None:
        text, self._text, self._asked = self._text, None, False
        return text

    def pending(self) -> bool:
        return self._asked


def partial_token_budget(seconds: float, prefix_tokens: int) -> int:
    """The tokens a partial decode of `seconds` of audio may write after its forced prefix."""
    whole = _SPARE_TOKENS + int(seconds * _TOKENS_PER_SECOND)
    return max(2, whole - prefix_tokens)


def decode_partials(model: WhisperModel, requests: Sequence[PartialRequest]) -> list[str]:
    """Each request's partial text (its forced prefix first, as faster-whisper writes it),
    in order: those prompted alike decoded together, at most MAX_BATCH at a time. Raises
    TranscriberUnavailable when the model fails."""
    prepared = []
    for request in requests:
        text = request.prompt.strip()
        # As faster-whisper's Tokenizer.encode does, whatever the language.
        previous = model.hf_tokenizer.encode(" " + text, add_special_tokens=False).ids
        prepared.append((request, previous[-PROMPT_TOKENS:] if text else []))
    texts: list[str] = [""] * len(requests)
    order = sorted(range(len(requests)), key=lambda i: len(prepared[i][1]))
    for _, group in itertools.groupby(order, key=lambda i: len(prepared[i][1])):
        for batch in _batches(sorted(group, key=lambda i: len(requests[i].samples)), requests):
            decoded = _decode(model, [prepared[i] for i in batch])
            for index, text in zip(batch, decoded, strict=True):
                texts[index] = text
    return texts


def _batches(indices: list[int], requests: Sequence[PartialRequest]) -> list[list[int]]:
    """Indices (ordered by audio length) cut into batches of at most MAX_BATCH whose encoder
    lengths are within _LENGTH_RATIO of their first."""
    batches: list[list[int]] = []
    for index in indices:
        frames = _encoder_frames(requests[index].samples)
        if (
            batches
            and len(batches[-1]) < MAX_BATCH
            and frames <= _LENGTH_RATIO * _encoder_frames(requests[batches[-1][0]].samples)
        ):
            batches[-1].append(index)
        else:
            batches.append([index])
    return batches


def _decode(model: WhisperModel, batch: list[tuple[PartialRequest, list[int]]]) -> list[str]:
    """One CTranslate2 call for partials whose prompts are equally long."""
    from faster_whisper.tokenizer import Tokenizer
    from faster_whisper.transcribe import get_suppressed_tokens

    from soundstage.engines.transcribers.short_encoder import WHOLE_ENCODER_FRAMES

    features = [_features(model, request.samples) for request, _ in batch]
    frames = min(
        WHOLE_ENCODER_FRAMES, max(_encoder_frames(request.samples) for request, _ in batch)
    )
    windows = np.stack([_padded(f, frames) for f in features])
    multilingual = bool(model.model.is_multilingual)
    try:
        encoded = model.encode(windows)
        languages = [request.language if multilingual else "en" for request, _ in batch]
        if any(language is None for language in languages):
            detected = model.model.detect_language(encoded)
            languages = [
                language or str(found[0][0][2:-2])
                for language, found in zip(languages, detected, strict=True)
            ]
        prompts, budgets, tokenizers = [], [], []
        for (request, previous), language in zip(batch, languages, strict=True):
            tokenizer = Tokenizer(
                model.hf_tokenizer, multilingual, task="transcribe", language=language
            )
            prompt = model.get_prompt(
                tokenizer, previous, without_timestamps=True, prefix=request.prefix or None
            )
            forced = len(tokenizer.encode(" " + request.prefix.strip())) if request.prefix else 0
            seconds = len(request.samples) / model.feature_extractor.sampling_rate
            prompts.append(prompt)
            budgets.append(len(prompt) + partial_token_budget(seconds, forced))
            tokenizers.append(tokenizer)
        results = model.model.generate(
            encoded,
            prompts,
            beam_size=1,
            patience=1,
            length_penalty=1,
            repetition_penalty=1,
            no_repeat_ngram_size=0,
            max_length=min(max(budgets), model.max_length),
            return_scores=True,
            return_no_speech_prob=True,
            suppress_blank=True,
            suppress_tokens=get_suppressed_tokens(tokenizers[0], [-1]),
            max_initial_timestamp_index=_MAX_INITIAL_TIMESTAMP_INDEX,
        )
    except RuntimeError as exc:
        raise TranscriberUnavailable(f"The speech-to-text model failed: {exc}") from exc
    texts = []
    for result, prompt, budget, tokenizer in zip(
        results, prompts, budgets, tokenizers, strict=True
    ):
        tokens: list[int] = result.sequences_ids[0]
        # Its own budget (the batch ran to the largest one): what it would have written alone.
        tokens = tokens[: budget - len(prompt) + _forced(prompt, tokenizer)]
        average = result.scores[0] * len(tokens) / (len(tokens) + 1)
        if result.no_speech_prob > _NO_SPEECH and average <= _LOW_LOG_PROBABILITY:
            texts.append("")
            continue
        texts.append(" ".join(tokenizer.decode([t for t in tokens if t < tokenizer.eot]).split()))
    return texts


def _forced(prompt: list[int], tokenizer: Any) -> int:
    """The prompt's tokens after <|notimestamps|>: the forced prefix, which the result holds."""
    return len(prompt) - prompt.index(tokenizer.no_timestamps) - 1


def _features(model: WhisperModel, samples: Samples) -> npt.NDArray[np.float32]:
    """The audio's log-mel features as faster-whisper computes a window's (its last frame,
    the padding's, left out)."""
    features: npt.NDArray[np.float32] = model.feature_extractor(samples)
    return features[:, : features.shape[-1] - 1]


def _encoder_frames(samples: Samples) -> int:
    frames = max(len(samples) // HOP + 1 + _PADDING_FRAMES, _MIN_ENCODER_FRAMES)
    return frames + frames % 2


def _padded(features: npt.NDArray[np.float32], frames: int) -> npt.NDArray[np.float32]:
    cut = features[:, :frames]
    return np.ascontiguousarray(np.pad(cut, ((0, 0), (0, frames - cut.shape[-1]))))
