"""Voice casting: a target-language voice for every source speaker, and how far to move its
pitch toward the speaker's.

Candidates are the catalog's voices of the target language and, for espeak-ng, that voice's
variants (espeak.VARIANTS): a language with one catalog voice still has a dozen, so every
speaker gets a voice of their own (up to the number of candidates; beyond it, voices are
reused with a different pitch).

With preserve_voice each speaker, the longest-speaking first, takes the free candidate
closest to them: speaker-embedding similarity (resemblyzer), plus a bonus for the same
gender (told by median pitch), minus the pitch distance; the voice is then moved by the
semitones between its median pitch and the speaker's (at most MAX_SHIFT_ST), formants kept.
Without it, speakers take the language's default voices in the order they first speak,
unshifted."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from soundstage.engines.conversion.intonation import REFERENCE_TEXT, pitch_track
from soundstage.engines.errors import SynthesisFailed
from soundstage.engines.speakers.base import NoSpeech
from soundstage.engines.speakers.embeddings import Embedding, embed, similarity
from soundstage.engines.tts.base import EngineVoice
from soundstage.engines.tts.espeak import ENGINE as ESPEAK
from soundstage.engines.tts.espeak import variant_voices
from soundstage.engines.tts.registry import get_engine
from soundstage.media.audio import Audio

# Below this median pitch a voice is taken for a man's (between typical male ~120 Hz and
# female ~210 Hz).
MALE_BELOW_HZ: Final = 165.0
MAX_SHIFT_ST: Final = 6.0
_GENDER_BONUS: Final = 0.15
# Per semitone between the speaker's and the voice's median pitch.
_PITCH_PENALTY: Final = 0.01
# At most this much of a speaker's speech is embedded (resemblyzer averages it anyway).
MAX_PROFILE_S: Final = 60.0
# The espeak variants speakers are cast from, in the order default voices are given out
# (men and women in turn): the most intelligible (docs/calibration.md, "Dubbing voices and
# speaking rate").
_DEFAULT_VARIANTS: Final = ("m3", "f5", "m1", "f2", "m7", "m4")
# With preserve_voice, a clearer voice gets a head start over a less clear one of about
# the spread of the voices' similarities to one speaker: 0.3 x (50% - its measured error
# rate, docs/calibration.md, "Dubbing voices and speaking rate").
_CLARITY_BONUS: Final = {
    variant: 0.3 * (0.5 - error)
    for variant, error in (
        ("m3", 0.21),
        ("m1", 0.25),
        ("m7", 0.27),
        ("m4", 0.34),
        ("f5", 0.42),
        ("f2", 0.45),
    )
}
# Each candidate voice is profiled once per process on a sample of its language.
_SAMPLES: Final = {
    "en": REFERENCE_TEXT,
    "es": "Era un día frío y luminoso de abril, y los relojes daban las trece. "
    "Ella abrió la ventana y miró la ciudad tranquila.",
    "fr": "C'était une journée d'avril froide et claire, et les horloges sonnaient treize "
    "heures. Elle ouvrit la fenêtre et regarda la ville tranquille.",
    "it": "Era una fredda e luminosa giornata d'aprile, e gli orologi battevano le tredici. "
    "Lei aprì la finestra e guardò la città tranquilla.",
    "pt": "Era um dia frio e claro de abril, e os relógios batiam treze horas. "
    "Ela abriu a janela e olhou para a cidade tranquila.",
}


@dataclass(frozen=True)
class SpeakerProfile:
    speaker: str
    speech_ms: int
    embedding: Embedding | None
    median_hz: float | None

    @property
    def gender(self) -> str | None:
        if self.median_hz is None:
            return None
        return "male" if self.median_hz < MALE_BELOW_HZ else "female"


@dataclass(frozen=True)
class Casting:
    speaker: str
    voice: EngineVoice
    # The catalog voice it is (or is a variant of).
    voice_id: str
    # Pitch shift applied to every line of the speaker (formants kept).
    semitones: float
    voice_median_hz: float | None
    similarity: float | None


@dataclass(frozen=True)
class Candidate:
    voice: EngineVoice
    voice_id: str


@dataclass(frozen=True)
class _VoiceProfile:
    embedding: Embedding | None
    median_hz: float | None


_PROFILES: dict[tuple[str, str, str], _VoiceProfile] = {}
_LOCK = threading.Lock()


def candidates(catalog: Sequence[tuple[str, EngineVoice]]) -> list[Candidate]:
    """The catalog voices (voice_id, engine voice) of a language first, then the default
    order of the espeak voices' variants."""
    out = [Candidate(voice, voice_id) for voice_id, voice in catalog]
    seen = {candidate.voice.voice for candidate in out if candidate.voice.engine == ESPEAK}
    for voice_id, voice in catalog:
        if voice.engine != ESPEAK:
            continue
        variants = {v.voice.partition("+")[2]: v for v in variant_voices(voice)}
        for name in _DEFAULT_VARIANTS:
            variant = variants.get(name)
            if variant is not None and variant.voice not in seen:
                seen.add(variant.voice)
                out.append(Candidate(variant, voice_id))
    return out


def speaker_profile(speaker: str, speech: Audio, speech_ms: int) -> SpeakerProfile:
    """The speaker's voice from their speech (their utterances, joined)."""
    sample = Audio(speech.samples[: round(MAX_PROFILE_S * speech.sample_rate)], speech.sample_rate)
    try:
        embedding: Embedding | None = embed(sample)
    except NoSpeech:
        embedding = None
    return SpeakerProfile(speaker, speech_ms, embedding, pitch_track(sample).median_hz())


def cast(
    speakers: Sequence[SpeakerProfile],
    pool: Sequence[Candidate],
    *,
    language: str,
    preserve_voice: bool,
) -> dict[str, Casting]:
    """A voice for each speaker (see the module's doc). pool must not be empty."""
    if not pool:
        raise ValueError("no candidate voices")
    if not preserve_voice:
        return {
            profile.speaker: Casting(profile.speaker, pick.voice, pick.voice_id, 0.0, None, None)
            for profile, pick in zip(speakers, _cycled(pool, len(speakers)), strict=True)
        }
    profiles = {candidate.voice: _profile(candidate.voice, language) for candidate in pool}
    taken: set[EngineVoice] = set()
    castings: dict[str, Casting] = {}
    for speaker in sorted(speakers, key=lambda profile: -profile.speech_ms):
        free = [candidate for candidate in pool if candidate.voice not in taken] or list(pool)
        best = max(free, key=lambda c: _score(speaker, profiles[c.voice], c.voice))
        taken.add(best.voice)
        voice = profiles[best.voice]
        castings[speaker.speaker] = Casting(
            speaker=speaker.speaker,
            voice=best.voice,
            voice_id=best.voice_id,
            semitones=_shift(speaker.median_hz, voice.median_hz),
            voice_median_hz=voice.median_hz,
            similarity=None
            if speaker.embedding is None or voice.embedding is None
            else round(similarity(speaker.embedding, voice.embedding), 4),
        )
    return {profile.speaker: castings[profile.speaker] for profile in speakers}


def _cycled(pool: Sequence[Candidate], count: int) -> list[Candidate]:
    return [pool[index % len(pool)] for index in range(count)]


def _score(speaker: SpeakerProfile, voice: _VoiceProfile, engine_voice: EngineVoice) -> float:
    score = _CLARITY_BONUS.get(engine_voice.voice.partition("+")[2], 0.0)
    if engine_voice.engine != ESPEAK:
        score = 0.0
    if speaker.embedding is not None and voice.embedding is not None:
        score += similarity(speaker.embedding, voice.embedding)
    if speaker.gender is not None and speaker.gender == engine_voice.gender:
        score += _GENDER_BONUS
    if speaker.median_hz is not None and voice.median_hz is not None:
        score -= _PITCH_PENALTY * abs(12 * np.log2(speaker.median_hz / voice.median_hz))
    return score


def _shift(speaker_hz: float | None, voice_hz: float | None) -> float:
    if speaker_hz is None or voice_hz is None:
        return 0.0
    semitones = 12 * float(np.log2(speaker_hz / voice_hz))
    return round(min(max(semitones, -MAX_SHIFT_ST), MAX_SHIFT_ST), 2)


def _profile(voice: EngineVoice, language: str) -> _VoiceProfile:
    """The voice's embedding and median pitch, measured once per process."""
    key = (voice.engine, voice.voice, language)
    with _LOCK:
        known = _PROFILES.get(key)
    if known is not None:
        return known
    text = _SAMPLES.get(language, _SAMPLES["en"])
    try:
        audio = get_engine(voice.engine).synthesize(text, voice.voice)
        profile = _VoiceProfile(embed(audio), pitch_track(audio).median_hz())
    except (SynthesisFailed, NoSpeech):
        profile = _VoiceProfile(None, None)
    with _LOCK:
        _PROFILES[key] = profile
    return profile
