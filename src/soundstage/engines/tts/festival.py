"""Festival (Debian festival + festvox-*): the HTS voice cmu_us_slt_arctic_hts and the diphone
voice kal_diphone, American English; the diphone voices pc_diphone and lp_diphone (festvox-itapc16k,
festvox-italp16k, with festlex-ifd), Italian.

Each call runs text2wave in its own process (0.3-0.6 s of start-up, most of it loading the
voice): Festival keeps global state per utterance, so a shared server process would serialise
every request anyway and could be left in a bad state by one of them.

Phonemes (base.Phonemes) are honoured by every voice: each is a stand-in word in the text
(_process.lexicon_text) with a lexicon entry (`lex.add.entry`, added after the voice is
chosen) giving its IPA in the phones of the voice's lexicon: CMU phones for the English ones
(phonemes.ipa_to_cmu), Italian phones for the Italian ones (phonemes.ipa_to_italian); a sound
the language lacks becomes its nearest.

The Italian voices read Latin-1 text ("città"); each at a pace chosen for listeners (see
_FestivalVoice.pace in the catalog, docs/calibration.md "Festival's Italian voices: pace").
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.engines.tts._process import (
    latin1_text,
    lexicon_text,
    read_speech,
    require_binary,
    run_tool,
    scratch_dir,
    stretch,
)
from soundstage.engines.tts.base import BaseSynthesizer, EngineVoice, Part, check_text
from soundstage.engines.tts.phonemes import Syllable, ipa_to_italian
from soundstage.media.audio import Audio

ENGINE: Final = "festival"


@dataclass(frozen=True)
class _FestivalVoice:
    voice: EngineVoice
    # HTS voices ignore Duration_Stretch; their speed is hts_engine's -r option instead.
    hts: bool
    # Italian voices read Latin-1 and take lexicon entries in Italian phones.
    italian: bool = False
    # The voice's pace at speed 1.0, as a fraction of Festival's own.
    pace: float = 1.0


_CATALOG: Final = (
    _FestivalVoice(
        EngineVoice(
            engine=ENGINE,
            voice="cmu_us_slt_arctic_hts",
            language="en-US",
            gender="female",
            accent="American",
            label="Sally",
        ),
        hts=True,
    ),
    _FestivalVoice(
        EngineVoice(
            engine=ENGINE,
            voice="kal_diphone",
            language="en-US",
            gender="male",
            accent="American",
            label="Kal",
        ),
        hts=False,
    ),
    _FestivalVoice(
        EngineVoice(
            engine=ENGINE,
            voice="pc_diphone",
            language="it-IT",
            gender="male",
            accent="Standard Italian",
            label="Paolo",
        ),
        hts=False,
        italian=True,
        # For listeners: at Festival's pace (130 words a minute) pc's diphones are misheard
        # 14-15% of words on both sets of sentences measured, one of them in no test; at 83%
        # (109 words a minute) 7-9% on both (docs/calibration.md, "Festival's Italian voices:
        # pace").
        pace=0.83,
    ),
    _FestivalVoice(
        EngineVoice(
            engine=ENGINE,
            voice="lp_diphone",
            language="it-IT",
            gender="female",
            accent="Standard Italian",
            label="Laura",
        ),
        hts=False,
        italian=True,
        # Festival's own pace (130 words a minute): slowing lp helped the round trip's numbers
        # but cost as much on plain sentences (9.9% of words misheard over both sets at 1.0,
        # 10.3% at 0.83; docs/calibration.md), so nothing a listener gains.
        pace=1.0,
    ),
)
_SYMBOL: Final = re.compile(r"[A-Za-z0-9_]+")


class FestivalEngine(BaseSynthesizer):
    """text2wave per call; output at the voice's rate (32 kHz slt-hts, 16 kHz the others)."""

    name = ENGINE

    def __init__(self) -> None:
        self._text2wave = require_binary("text2wave", ENGINE)
        installed = self._installed_voices(require_binary("festival", ENGINE))
        self._catalog = {
            entry.voice.voice: entry for entry in _CATALOG if entry.voice.voice in installed
        }

    def voices(self) -> list[EngineVoice]:
        return [entry.voice for entry in self._catalog.values()]

    def speak(
        self, text: str | Sequence[Part], voice: str, *, rate: float, deterministic: bool
    ) -> Audio:
        # Deterministic anyway: `deterministic` changes nothing.
        entry = self._catalog[voice]
        readable = (
            lexicon_text(text, readable=latin1_text, syllables_of=ipa_to_italian)
            if entry.italian
            else lexicon_text(text)
        )
        check_text(readable.text)
        pace = rate * entry.pace
        if entry.hts:
            speed = (
                f'(set! hts_engine_params (append hts_engine_params (list (list "-r" {pace:.4f}))))'
            )
        else:
            speed = f"(Parameter.set 'Duration_Stretch {stretch(pace)})"
        with scratch_dir() as workdir:
            wav = workdir / "speech.wav"
            # The voice is chosen before the speed: selecting a voice resets its parameters.
            # The text goes to stdin, which text2wave reads as text, never as Scheme.
            # Lexicon entries after the voice too: the voice chooses the lexicon.
            entries = [
                argument
                for word, syllables in readable.entries.items()
                for argument in ("-eval", _lexicon_entry(word, syllables))
            ]
            run_tool(
                [
                    self._text2wave,
                    "-eval",
                    f"(voice_{voice})",
                    "-eval",
                    speed,
                    *entries,
                    "-o",
                    str(wav),
                ],
                engine=ENGINE,
                stdin_text=readable.text,
                encoding="latin-1" if entry.italian else "ascii",
            )
            return read_speech(wav, ENGINE)

    @staticmethod
    def _installed_voices(festival: str) -> set[str]:
        try:
            listing = run_tool(
                [festival, "--pipe"], engine=ENGINE, stdin_text="(print (voice.list))\n"
            )
        except SynthesisFailed as exc:
            raise EngineUnavailable(f"Festival cannot list its voices: {exc.message}") from exc
        return set(_SYMBOL.findall(listing))


def _lexicon_entry(word: str, syllables: list[Syllable]) -> str:
    """Festival's lex.add.entry for a stand-in word: ("word" nil (((phones) stress) ...)),
    stress 1 or 0 (the CMU lexicon's two levels). Word and phones come from fixed tables,
    never from the request, so nothing needs quoting."""
    body = " ".join(
        f"(({' '.join(syllable.phones)}) {1 if syllable.stress == 1 else 0})"
        for syllable in syllables
    )
    return f"""(lex.add.entry '("{word}" nil ({body})))"""
