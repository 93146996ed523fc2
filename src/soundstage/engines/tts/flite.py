"""flite (Debian flite): the built-in voices awb (Scottish male), rms (American male) and slt
(American female), English only, 16 kHz.

Phonemes (base.Phonemes) are honoured by all three: each is a stand-in word in the text
(_process.lexicon_text) given its IPA in CMU phones (phonemes.ipa_to_cmu) in a lexicon
addenda file (`-add_lex`, lines `word : phone phone ...`, vowels with their stress digit).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.engines.tts._process import (
    lexicon_text,
    read_speech,
    require_binary,
    run_tool,
    scratch_dir,
    stretch,
)
from soundstage.engines.tts.base import BaseSynthesizer, EngineVoice, Part, check_text
from soundstage.engines.tts.phonemes import CMU_VOWELS, Syllable
from soundstage.media.audio import Audio

ENGINE: Final = "flite"

_CATALOG: Final = (
    EngineVoice(
        engine=ENGINE,
        voice="awb",
        language="en-GB",
        gender="male",
        accent="Scottish",
        label="Alan",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="rms",
        language="en-US",
        gender="male",
        accent="American",
        label="Richard",
    ),
    EngineVoice(
        engine=ENGINE,
        voice="slt",
        language="en-US",
        gender="female",
        accent="American",
        label="Sarah",
    ),
)


# A voice's own pace, as a fraction of flite's, chosen for listeners: every voice at flite's
# own pace (awb about 168 words a minute, the pace its voice was built at and an ordinary
# reading pace; a listener who wants it slower asks for a lower speed). awb was once slowed to
# 86-90% to pass a whisper round-trip bound whose figure moved with the CPU (docs/calibration.md,
# "Whisper's kernels and the measured WER"): a test's figure is no reason to slow a voice.
_PACE: Final = {"awb": 1.0}


class FliteEngine(BaseSynthesizer):
    """flite per call (about 10 ms to start: the voices are compiled in)."""

    name = ENGINE

    def __init__(self) -> None:
        self._binary = require_binary("flite", ENGINE)
        installed = self._installed_voices()
        self._voices = [voice for voice in _CATALOG if voice.voice in installed]

    def voices(self) -> list[EngineVoice]:
        return list(self._voices)

    def speak(
        self, text: str | Sequence[Part], voice: str, *, rate: float, deterministic: bool
    ) -> Audio:
        # Deterministic anyway: `deterministic` changes nothing.
        readable = lexicon_text(text)
        check_text(readable.text)
        with scratch_dir() as workdir:
            source = workdir / "text.txt"
            source.write_text(readable.text, encoding="ascii")
            wav = workdir / "speech.wav"
            lexicon: list[str] = []
            if readable.entries:
                addenda = workdir / "lexicon.txt"
                addenda.write_text(
                    "".join(
                        f"{word} : {_addenda_phones(syllables)}\n"
                        for word, syllables in readable.entries.items()
                    ),
                    encoding="ascii",
                )
                lexicon = ["-add_lex", str(addenda)]
            # The text goes in a file (-f), never on the command line, where text starting
            # with "-" could be taken for an option.
            run_tool(
                [
                    self._binary,
                    "-voice",
                    voice,
                    "--setf",
                    f"duration_stretch={stretch(rate * _PACE.get(voice, 1.0))}",
                    *lexicon,
                    "-f",
                    str(source),
                    "-o",
                    str(wav),
                ],
                engine=ENGINE,
            )
            return read_speech(wav, ENGINE)

    def _installed_voices(self) -> set[str]:
        # "Voices available: kal awb_time kal16 awb rms slt"
        try:
            listing = run_tool([self._binary, "-lv"], engine=ENGINE)
        except SynthesisFailed as exc:
            raise EngineUnavailable(f"flite cannot list its voices: {exc.message}") from exc
        return set(listing.partition(":")[2].split())


def _addenda_phones(syllables: list[Syllable]) -> str:
    """A stand-in's phones for flite's addenda: each vowel with its stress digit (flite
    syllabifies the word itself)."""
    return " ".join(
        _stressed(phone, syllable.stress) if phone in CMU_VOWELS else phone
        for syllable in syllables
        for phone in syllable.phones
    )


def _stressed(vowel: str, stress: int) -> str:
    # flite's lexicon has two levels, 1 and 0 (it refuses eh2: "not in lexicon phoneset"), so
    # secondary stress is 0, as in Festival's. The CMU dictionary writes a stressed schwa ah.
    if stress == 1:
        return f"{'ah' if vowel == 'ax' else vowel}1"
    return f"{vowel}0"
