"""Voice conversion by resynthesis: transcribe the speech, say each phrase again with the target
voice, and fit it to the source's word timing and intonation."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Final

import numpy as np

from soundstage.engines.conversion.base import Converted, ConvertedPhrase, NothingToSay, Progress
from soundstage.engines.conversion.intonation import (
    REFERENCE_TEXT,
    PitchTrack,
    follow_contour,
    pitch_track,
)
from soundstage.engines.conversion.phrases import Phrase, phrases
from soundstage.engines.conversion.timing import (
    KeyFrame,
    bounded_key_frames,
    match_level,
    place,
    resampled_mono,
    trim_silence,
    warp,
)
from soundstage.engines.errors import SynthesisFailed, UnknownVoice
from soundstage.engines.speakers.audio16k import mono_16k_audio
from soundstage.engines.transcribers import sphinx
from soundstage.engines.transcribers.base import Segment, Transcriber, Transcript, Word
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.tts.base import MAX_RATE, MIN_RATE, SpeechSynthesizer, find_voice
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio, Samples

# The share of the work the transcription takes, for progress.
_TRANSCRIBING: Final = 0.3
# A phrase the voice says much faster or slower than the source is synthesized again at the
# engine speaking rate that brings it to the source's: the engine's own rate sounds better
# than stretching that far.
_RESPEAK_BELOW: Final = 0.75
_RESPEAK_ABOVE: Final = 1.33
# Bounds of the stretch of a whole phrase (output / synthesized duration), after any change
# of speaking rate. Beyond them the phrase is stretched to the bound, starts on time and
# ends early (silence follows) or late (it runs into the pause after it and is cut, with a
# fade, where the next phrase starts or the input ends).
MIN_PHRASE_RATIO: Final = 0.5
MAX_PHRASE_RATIO: Final = 2.0
# Whisper's codes of languages written without spaces between words.
_UNSPACED: Final = frozenset({"zh", "yue", "ja", "th", "lo", "km", "my", "bo"})


@dataclass(frozen=True)
class _Task:
    """What every phrase of one conversion shares."""

    synthesizer: SpeechSynthesizer
    voice: str
    # The input, mono at its own rate (the output's), and its pitch.
    source: Samples
    rate: int
    pitch: PitchTrack
    source_median_hz: float | None
    target_median_hz: float | None
    # Whisper's code of the language spoken.
    language: str


class ResynthesisConverter:
    """Transcribe (Whisper; English words force-aligned with PocketSphinx), cut into phrases at
    pauses over 250 ms and sentence ends, synthesize each phrase with the target voice, warp
    it with Rubber Band so that each word starts where the source's did, move its pitch with
    PSOLA to follow the source's intonation around the voice's own median, match the
    source's loudness, and place it at the source's time.

    The output is mono at the input's sample rate with exactly its frame count (see
    Converted); the engine's rate would put the output out of step with the input by a
    fraction of a frame per phrase and make mixing it back (a background, a video) a
    resampling job for every caller."""

    name = "resynthesis"

    def __init__(self, transcriber: Transcriber | None = None) -> None:
        # None: the configured default model, looked up at each call (see get_transcriber).
        self._transcriber = transcriber
        self._medians: dict[tuple[str, str], float | None] = {}
        self._lock = threading.Lock()

    def convert(
        self,
        speech: Audio,
        *,
        engine: str,
        engine_voice: str,
        language: str | None,
        progress: Progress | None = None,
    ) -> Converted:
        def report(fraction: float) -> None:
            if progress is not None:
                progress(fraction)

        synthesizer = get_engine(engine)
        find_voice(synthesizer.voices(), engine_voice, engine)
        transcript = self._transcribe(speech, language, report)
        groups = phrases(transcript.words)
        output = np.zeros(speech.frames, dtype=np.float32)
        done: list[ConvertedPhrase] = []
        if groups:
            task = self._task(speech, synthesizer, engine_voice, transcript.language)
            for index, phrase in enumerate(groups):
                next_ms = groups[index + 1].start_ms if index + 1 < len(groups) else None
                done.append(_revoice(phrase, task, output, next_ms))
                report(_TRANSCRIBING + (1 - _TRANSCRIBING) * (index + 1) / len(groups))
            if not any(phrase.spoken for phrase in done):
                raise NothingToSay(
                    f"The voice could say none of the words heard: {transcript.text[:100]!r}."
                )
        report(1.0)
        audio = Audio(output.reshape(-1, 1), speech.sample_rate)
        return Converted(audio, transcript, tuple(done))

    def _transcribe(self, speech: Audio, language: str | None, report: Progress) -> Transcript:
        if speech.frames == 0:
            return Transcript("", (language or "und").split("-")[0].lower(), 1.0, 0, ())
        mono16 = mono_16k_audio(speech)
        transcriber = self._transcriber or get_transcriber()
        transcript = transcriber.transcribe(
            mono16,
            language=language,
            word_timestamps=True,
            progress=lambda done: report(_TRANSCRIBING * done),
        )
        # Whisper's word times drift around pauses: English words are force-aligned.
        segments = sphinx.refine_segments(mono16, transcript.segments, transcript.language)
        return replace(transcript, segments=tuple(segments))

    def _task(
        self, speech: Audio, synthesizer: SpeechSynthesizer, voice: str, language: str
    ) -> _Task:
        track = pitch_track(mono_16k_audio(speech))
        return _Task(
            synthesizer=synthesizer,
            voice=voice,
            # Mono input is used as it is: no second copy of what may be 10 minutes.
            source=speech.samples[:, 0]
            if speech.channels == 1
            else speech.samples.mean(axis=1, dtype=np.float32),
            rate=speech.sample_rate,
            pitch=track,
            source_median_hz=track.median_hz(),
            target_median_hz=self._voice_median(synthesizer, voice),
            language=language,
        )

    def _voice_median(self, synthesizer: SpeechSynthesizer, voice: str) -> float | None:
        key = (synthesizer.name, voice)
        with self._lock:
            if key in self._medians:
                return self._medians[key]
        try:
            median = pitch_track(synthesizer.synthesize(REFERENCE_TEXT, voice)).median_hz()
        except UnknownVoice:
            raise
        except SynthesisFailed:
            median = None
        with self._lock:
            self._medians[key] = median
        return median


def _revoice(phrase: Phrase, task: _Task, output: Samples, next_ms: int | None) -> ConvertedPhrase:
    """Say the phrase in the target voice and mix it into output at the phrase's time."""
    start = round(phrase.start_ms * task.rate / 1000)
    end = max(start + 1, round(phrase.end_ms * task.rate / 1000))
    separator = "" if task.language in _UNSPACED else " "
    text = separator.join(word.word for word in phrase.words)
    try:
        clip, engine_rate = _spoken(task.synthesizer, text, task.voice, (end - start) / task.rate)
    except UnknownVoice:
        raise
    except SynthesisFailed:
        # Nothing in it the engine can pronounce (a symbol, another script): left silent.
        return ConvertedPhrase(text, phrase.start_ms, phrase.end_ms, 1.0, 1.0, spoken=False)
    fitted, ratio = _fitted(clip, phrase, task, (end - start) / task.rate)
    samples = match_level(resampled_mono(fitted, task.rate), task.source[start:end])
    limit = output.size if next_ms is None else round(next_ms * task.rate / 1000)
    place(output, samples, start, min(limit, output.size), task.rate)
    return ConvertedPhrase(
        text, phrase.start_ms, phrase.end_ms, round(ratio, 3), engine_rate, spoken=True
    )


def _spoken(
    synthesizer: SpeechSynthesizer, text: str, voice: str, span_s: float
) -> tuple[Audio, float]:
    """The phrase said by the voice, silences trimmed, and the engine rate it was said at."""
    clip = trim_silence(synthesizer.synthesize(text, voice))
    ratio = span_s * clip.sample_rate / clip.frames
    if synthesizer.supports_rate and not _RESPEAK_BELOW <= ratio <= _RESPEAK_ABOVE:
        engine_rate = round(min(max(1 / ratio, MIN_RATE), MAX_RATE), 3)
        return trim_silence(synthesizer.synthesize(text, voice, rate=engine_rate)), engine_rate
    return clip, 1.0


def _fitted(clip: Audio, phrase: Phrase, task: _Task, span_s: float) -> tuple[Audio, float]:
    """The clip on the source's timing (and intonation), with its overall stretch ratio."""
    clip_s = clip.frames / clip.sample_rate
    wanted = span_s / clip_s
    ratio = min(max(wanted, MIN_PHRASE_RATIO), MAX_PHRASE_RATIO)
    keys: list[KeyFrame] = []
    # Word times inside the synthesized clip come from forced alignment, English only;
    # other languages (and a phrase stretched to a bound) are stretched evenly.
    if task.language == "en" and ratio == wanted:
        keys = _word_keys(clip, phrase, span_s * 1000)
    fitted = warp(clip, round(clip.frames * ratio), keys)
    if task.source_median_hz is not None and task.target_median_hz is not None:
        fitted = follow_contour(
            fitted,
            task.pitch,
            offset_s=phrase.start_ms / 1000,
            source_median_hz=task.source_median_hz,
            target_median_hz=task.target_median_hz,
        )
    return fitted, ratio


def _word_keys(clip: Audio, phrase: Phrase, target_ms: float) -> list[KeyFrame]:
    """Key frames moving each word's start in the clip to its start in the source phrase."""
    spoken = _aligned_words(clip, phrase.words)
    if spoken is None:
        return []
    keys = [
        KeyFrame(float(said.start_ms), float(heard.start_ms - phrase.start_ms))
        for said, heard in zip(spoken[1:], phrase.words[1:], strict=True)
    ]
    return bounded_key_frames(keys, clip.frames * 1000 / clip.sample_rate, target_ms)


def _aligned_words(clip: Audio, words: Sequence[Word]) -> list[Word] | None:
    """Where the clip says each word (forced alignment of the known text), or None if the
    aligner could not place them."""
    audio = mono_16k_audio(clip)
    total = sum(len(word.word) + 1 for word in words)
    guesses: list[Word] = []
    position = 0
    for word in words:
        begin = audio.duration_ms * position // total
        position += len(word.word) + 1
        guesses.append(Word(word.word, begin, audio.duration_ms * position // total, 0.0))
    segment = Segment(" ".join(w.word for w in words), 0, audio.duration_ms, tuple(guesses))
    aligned = list(sphinx.refine_segments(audio, [segment], "en")[0].words)
    return None if aligned == guesses else aligned
