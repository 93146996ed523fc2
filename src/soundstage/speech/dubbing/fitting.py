"""Saying a translated utterance in its speaker's voice and fitting it into the source's time
span, by these rules, in order:

1. It starts when the source utterance starts, always.
2. It is synthesized at CLEAR_RATE (engines that have a rate: espeak-ng, Piper; others at
   their own), espeak-ng with WORD_GAP_MS between words, silences trimmed. If that is
   longer than the source span plus MAX_OVERRUN_MS of the pause after it (if there is
   such a pause), it is said again faster by the engine itself, up to MAX_ENGINE_RATE: a
   voice speaking a little faster sounds better than one stretched.
3. Rubber Band (formants kept) then brings it to the span: slowed down at most
   MAX_SLOWDOWN (a shorter line ends early and silence follows); a longer one is left as
   it is up to MAX_OVERRUN_MS past the span (never past the next utterance, of any
   speaker, or the media's end), and sped up beyond, at most MAX_SPEEDUP.
4. A line that still does not fit overlaps what follows (two voices at once, as in a
   heated exchange) rather than being cut, except at the end of the media, where it is
   faded out.
5. It is as loud (RMS) as the source's voice in that span, and moved by the speaker's
   pitch shift (casting)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np

from soundstage.engines.conversion.timing import (
    match_level,
    place,
    resampled_mono,
    trim_silence,
)
from soundstage.engines.dsp import stretch_and_shift
from soundstage.engines.errors import SynthesisFailed, UnknownVoice
from soundstage.engines.tts.base import SpeechSynthesizer
from soundstage.engines.tts.espeak import EspeakEngine
from soundstage.engines.tts.frontend import reading as frontend
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio, Samples
from soundstage.speech.dubbing.raw import RawAudio

# A little slower than espeak-ng's 175 words a minute, with short pauses between words: far
# fewer words missed (docs/calibration.md, "Dubbing voices and speaking rate").
CLEAR_RATE: Final = 0.85
WORD_GAP_MS: Final = 30
MAX_ENGINE_RATE: Final = 1.3
MAX_OVERRUN_MS: Final = 600
MAX_SLOWDOWN: Final = 1.15
MAX_SPEEDUP: Final = 1.25


@dataclass(frozen=True)
class Line:
    """A translated utterance as it was placed in the output."""

    start_ms: int
    end_ms: int
    # The output's duration over the synthesized one's, after any change of engine rate
    # (< 1: sped up).
    time_ratio: float
    engine_rate: float
    # False when the engine could say nothing of it: left silent.
    spoken: bool


def say_in_span(
    output: RawAudio,
    text: str,
    *,
    engine: str,
    voice: str,
    language: str,
    semitones: float,
    start_ms: int,
    end_ms: int,
    limit_ms: int,
    source_voice: Samples,
) -> Line:
    """Mix the text, said by the voice, into output (mono, in the work directory) by the
    module's rules.
    end_ms is where the source utterance ends; limit_ms where the next one starts (or the
    media ends); source_voice is the isolated source voice in [start_ms, end_ms). The text is
    read through the text front end in the voice's `language` (numbers, dates... read out
    as every voice reads them)."""
    synthesizer = get_engine(engine)
    text = frontend.plain_spoken_text(text, language)
    if not text:
        return Line(start_ms, start_ms, 1.0, 1.0, spoken=False)
    span_s = max(end_ms - start_ms, 1) / 1000
    room_s = max(min(limit_ms, end_ms + MAX_OVERRUN_MS) - start_ms, 1) / 1000
    room_s = max(room_s, span_s)
    try:
        engine_rate = CLEAR_RATE if synthesizer.supports_rate else 1.0
        clip = _spoken(synthesizer, text, voice, engine_rate)
        clip_s = clip.frames / clip.sample_rate
        if clip_s > room_s and synthesizer.supports_rate:
            engine_rate = round(min(engine_rate * clip_s / room_s, MAX_ENGINE_RATE), 3)
            clip = _spoken(synthesizer, text, voice, engine_rate)
    except UnknownVoice:
        raise
    except SynthesisFailed:
        return Line(start_ms, start_ms, 1.0, 1.0, spoken=False)
    clip_s = clip.frames / clip.sample_rate
    if clip_s <= span_s:
        ratio = min(span_s / clip_s, MAX_SLOWDOWN)
    else:
        ratio = max(min(1.0, room_s / clip_s), 1 / MAX_SPEEDUP)
    fitted = stretch_and_shift(clip, time_ratio=ratio, semitones=semitones)
    rate = output.sample_rate
    samples = match_level(resampled_mono(fitted, rate), source_voice)
    start = round(start_ms * rate / 1000)
    # Faded in and out and cut at the media's end, as place() mixes it into an array.
    piece = np.zeros(max(0, min(samples.size, output.frames - start)), dtype=np.float32)
    place(piece, samples, 0, piece.size, rate)
    output.add(piece.reshape(-1, 1), start)
    end = min(start + samples.size, output.frames)
    return Line(start_ms, round(end * 1000 / rate), round(ratio, 3), engine_rate, spoken=True)


def _spoken(synthesizer: SpeechSynthesizer, text: str, voice: str, rate: float) -> Audio:
    if isinstance(synthesizer, EspeakEngine):
        speech = synthesizer.synthesize(text, voice, rate=rate, word_gap_ms=WORD_GAP_MS)
    else:
        speech = synthesizer.synthesize(text, voice, rate=rate)
    return trim_silence(speech)


def span_of(audio: Audio, start_ms: int, end_ms: int) -> Audio:
    """The audio in [start_ms, end_ms), at least one frame of it."""
    first = round(start_ms * audio.sample_rate / 1000)
    last = max(first + 1, round(end_ms * audio.sample_rate / 1000))
    return Audio(np.ascontiguousarray(audio.samples[first:last]), audio.sample_rate)


def voice_of(voice: RawAudio, start_ms: int, end_ms: int) -> Samples:
    """The (mono) voice in [start_ms, end_ms), at least one frame of it."""
    first = round(start_ms * voice.sample_rate / 1000)
    last = max(first + 1, round(end_ms * voice.sample_rate / 1000))
    return voice.read(first, last - first)[:, 0]
