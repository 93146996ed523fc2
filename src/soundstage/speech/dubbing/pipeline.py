"""The stages of a dubbing job between decoding and writing the output, each a function of
what the one before gave: isolate, transcribe, find the speakers, cut into utterances,
translate, cast voices, say every line in its span."""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path

import numpy as np

from soundstage.config import Settings
from soundstage.engines.separators.registry import get_separator
from soundstage.engines.speakers.audio16k import SAMPLE_RATE
from soundstage.engines.speakers.diarize import assign_speakers, diarize
from soundstage.engines.speakers.vad import speech_regions
from soundstage.engines.transcribers import sphinx
from soundstage.engines.transcribers.base import Transcriber, Transcript
from soundstage.engines.transcribers.registry import get_transcriber
from soundstage.engines.transcribers.whisper import WhisperTranscriber
from soundstage.engines.translators.base import LanguagePair, SourceUtterance, Translator
from soundstage.media.audio import Audio, Samples
from soundstage.speech.dubbing import casting
from soundstage.speech.dubbing.casting import Candidate, Casting, SpeakerProfile
from soundstage.speech.dubbing.fitting import Line, say_in_span, span_of, voice_of
from soundstage.speech.dubbing.raw import RawAudio, RawWriter, silent
from soundstage.speech.dubbing.tiers import Tier
from soundstage.speech.dubbing.utterances import Utterance, snapped, utterances

Progress = Callable[[float], None]

_BEAMS: dict[tuple[str, int], Transcriber] = {}
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Heard:
    """What the source says: its transcript, and its words in utterances with speakers."""

    transcript: Transcript
    utterances: list[Utterance]


@dataclass(frozen=True)
class Isolated:
    """The separation of the decoded input, in the work directory: the background (the
    input's rate and channels) and the voice (mono: channels averaged, the input's rate)."""

    background: RawAudio
    voice: RawAudio


def isolate(audio: RawAudio, tier: Tier, directory: Path, progress: Progress) -> Isolated:
    """The voice and the background, block by block. A second pass (premium) separates the
    recording played backwards and averages the two voice estimates: the model's errors lag
    differently."""
    separator = get_separator()
    passes = tier.isolation_passes
    rate, channels = audio.sample_rate, audio.channels
    with (
        RawWriter(directory / "background.f32", rate, channels) as background,
        RawWriter(directory / "voice.f32", rate, 1) as voice,
        RawWriter(directory / "forward.f32", rate, channels) as forward,
    ):
        for part in separator.separate_blocks(
            audio.blocks, progress=lambda done: progress(done / passes)
        ):
            if passes == 1:
                background.write(part.background.samples)
                voice.write(_mono(part.vocals.samples))
            else:
                forward.write(part.vocals.samples)
        if passes == 1:
            forward.audio.unlink()
            return Isolated(background.audio, voice.audio)
    forward_vocals = forward.audio
    isolated = Isolated(
        silent(directory / "background.f32", rate, channels, audio.frames),
        silent(directory / "voice.f32", rate, 1, audio.frames),
    )
    # The backward pass comes from the end: each part is put where it is in forward time.
    end = audio.frames
    for part in separator.separate_blocks(
        lambda: audio.blocks(backwards=True), progress=lambda done: progress((1 + done) / passes)
    ):
        start = end - part.vocals.frames
        backward = part.vocals.samples[::-1]
        vocals = (forward_vocals.read(start, part.vocals.frames) + backward) / np.float32(2)
        rest = np.subtract(audio.read(start, part.vocals.frames), vocals, dtype=np.float32)
        isolated.background.write_at(rest, start)
        isolated.voice.write_at(_mono(vocals), start)
        end = start
    forward_vocals.unlink()
    return isolated


def _mono(samples: Samples) -> Samples:
    mono: Samples = np.ascontiguousarray(samples.mean(axis=1), dtype=np.float32)
    return mono


def transcriber(settings: Settings, beam_size: int) -> Transcriber:
    """The configured speech-to-text model decoding with the tier's beam."""
    model = get_transcriber(settings=settings)
    if not isinstance(model, WhisperTranscriber):
        return model
    key = (model.name, beam_size)
    with _LOCK:
        if key not in _BEAMS:
            _BEAMS[key] = model.with_beam_size(beam_size)
        return _BEAMS[key]


def transcribe(
    voice16: Audio,
    *,
    mixture: Callable[[], Audio],
    language: str | None,
    tier: Tier,
    settings: Settings,
    progress: Progress,
) -> Transcript:
    """The isolated voice (16 kHz mono) transcribed with word times (force-aligned English
    words with the premium tier). When Whisper hears no words in the isolated voice, the
    mixture is transcribed instead: isolation can leave a voice Whisper takes for silence
    (espeak-ng's Spanish, greedy decoding: no-speech probability 0.75), and the words' times
    are the same in both. mixture() gives the mixture at 16 kHz mono, when needed. language
    None: detected (the transcript's `language` says which)."""
    model = transcriber(settings, tier.beam_size)
    transcript = model.transcribe(
        voice16, language=language, word_timestamps=True, progress=progress
    )
    heard_from = voice16
    if not transcript.words:
        heard_from = mixture()
        transcript = model.transcribe(
            heard_from, language=language, word_timestamps=True, progress=progress
        )
    if tier.align_words:
        segments = sphinx.refine_segments(heard_from, transcript.segments, transcript.language)
        transcript = replace(transcript, segments=tuple(segments))
    return transcript


def hear(transcript: Transcript, voice16: Audio, progress: Progress) -> Heard:
    """Find who speaks when, and cut the transcript's words into utterances."""
    words = transcript.words
    if not words:
        return Heard(transcript, [])
    turns = diarize(voice16, progress=progress)
    lines = utterances(words, assign_speakers(words, turns))
    return Heard(transcript, snapped(lines, speech_regions(voice16)))


def translate(
    lines: Sequence[Utterance], voice16: Audio, translator: Translator, pair: LanguagePair
) -> list[str]:
    sources = [
        SourceUtterance(line.text, span_of(voice16, line.start_ms, line.end_ms)) for line in lines
    ]
    return translator.translate(sources, pair)


def speaker_profiles(lines: Sequence[Utterance], voice16: Audio) -> list[SpeakerProfile]:
    """Each speaker's voice from their utterances, in order of first appearance (from the
    first casting.MAX_PROFILE_S of them, all a profile looks at: never a copy of hours)."""
    order: list[str] = []
    pieces: dict[str, list[Samples]] = {}
    held: dict[str, int] = {}
    spoken: dict[str, int] = {}
    wanted = round(casting.MAX_PROFILE_S * SAMPLE_RATE)
    for line in lines:
        if line.speaker not in pieces:
            order.append(line.speaker)
            pieces[line.speaker], held[line.speaker], spoken[line.speaker] = [], 0, 0
        span = span_of(voice16, line.start_ms, line.end_ms).samples[:, 0]
        spoken[line.speaker] += span.shape[0]
        if held[line.speaker] < wanted:
            pieces[line.speaker].append(span[: wanted - held[line.speaker]])
            held[line.speaker] += pieces[line.speaker][-1].shape[0]
    profiles = []
    for speaker in order:
        joined = np.concatenate(pieces[speaker]).reshape(-1, 1)
        speech_ms = round(spoken[speaker] * 1000 / SAMPLE_RATE)
        profiles.append(casting.speaker_profile(speaker, Audio(joined, SAMPLE_RATE), speech_ms))
    return profiles


def cast_voices(
    profiles: Sequence[SpeakerProfile],
    pool: Sequence[Candidate],
    *,
    language: str,
    preserve_voice: bool,
) -> dict[str, Casting]:
    return casting.cast(profiles, pool, language=language, preserve_voice=preserve_voice)


def say_all(
    lines: Sequence[Utterance],
    translations: Sequence[str],
    castings: dict[str, Casting],
    voice: RawAudio,
    track: RawAudio,
    progress: Progress,
) -> list[Line]:
    """Every translated line in its speaker's voice, in its span, mixed into the dub track
    (mono, at the isolated voice's rate and length): where each line went."""
    placed: list[Line] = []
    for index, (line, text) in enumerate(zip(lines, translations, strict=True)):
        limit_ms = lines[index + 1].start_ms if index + 1 < len(lines) else voice.duration_ms
        role = castings[line.speaker]
        if text.strip():
            placed.append(
                say_in_span(
                    track,
                    text,
                    engine=role.voice.engine,
                    voice=role.voice.voice,
                    language=role.voice.language,
                    semitones=role.semitones,
                    start_ms=line.start_ms,
                    end_ms=line.end_ms,
                    limit_ms=max(limit_ms, line.end_ms),
                    source_voice=voice_of(voice, line.start_ms, line.end_ms),
                )
            )
        else:
            placed.append(Line(line.start_ms, line.start_ms, 1.0, 1.0, spoken=False))
        progress((index + 1) / len(lines))
    return placed
