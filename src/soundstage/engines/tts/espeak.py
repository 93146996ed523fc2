"""espeak-ng (Debian espeak-ng): one formant voice for each of 24 languages other than English.

Intelligible but robotic (docs/calibration.md, "espeak-ng intelligibility"); its value is the
languages. One voice per language, half female, half male, alternating down the list: espeak's
default voices are male, and the `+f3` variant gives the female ones (the variant changes pitch
and formants, not pronunciation). Left out: Japanese (espeak-ng 1.51 reads kana only and
spells every kanji as "Chinese letter") and English (the other engines speak it far better).
Mandarin uses espeak's `cmn-latn-pinyin` voice: the plain `cmn` voice of Debian's 1.51 reads
the pinyin it derives from Chinese characters as English words ("ni three").

Phonemes (base.Phonemes) are honoured by every voice: their IPA becomes espeak's own phoneme
mnemonics (phonemes.ipa_to_espeak), given inline as `[[...]]`; espeak speaks them with the
voice's phoneme table, so a sound the language lacks comes out as its nearest.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.engines.tts._process import (
    read_speech,
    require_binary,
    run_tool,
    scratch_dir,
)
from soundstage.engines.tts.base import (
    BaseSynthesizer,
    EngineVoice,
    Gender,
    Part,
)
from soundstage.engines.tts.phonemes import ipa_to_espeak
from soundstage.media.audio import Audio

ENGINE: Final = "espeak"
# espeak-ng's own default speed, in words per minute.
_NORMAL_WPM: Final = 175
_FEMALE: Final = "+f3"

# (espeak voice, gender, BCP-47 language, accent, label)
_CATALOG: Final[tuple[tuple[str, Gender, str, str, str], ...]] = (
    ("es", "female", "es-ES", "Castilian", "Lucía"),
    ("fr-fr", "male", "fr-FR", "Metropolitan French", "Julien"),
    ("de", "female", "de-DE", "Standard German", "Anna"),
    ("it", "male", "it-IT", "Standard Italian", "Marco"),
    ("pt-br", "female", "pt-BR", "Brazilian", "Ana"),
    ("nl", "male", "nl-NL", "Netherlands Dutch", "Daan"),
    ("pl", "female", "pl-PL", "Standard Polish", "Zofia"),
    ("ru", "male", "ru-RU", "Standard Russian", "Dmitri"),
    ("cmn-latn-pinyin", "female", "cmn", "Standard Mandarin", "Mei"),
    ("hi", "male", "hi-IN", "Standard Hindi", "Arjun"),
    ("ar", "female", "ar", "Modern Standard Arabic", "Layla"),
    ("sv", "male", "sv-SE", "Central Swedish", "Erik"),
    ("tr", "female", "tr-TR", "Istanbul Turkish", "Elif"),
    ("el", "male", "el-GR", "Standard Greek", "Nikos"),
    ("cs", "female", "cs-CZ", "Standard Czech", "Tereza"),
    ("fi", "male", "fi-FI", "Standard Finnish", "Mikko"),
    ("da", "female", "da-DK", "Standard Danish", "Freja"),
    ("hu", "male", "hu-HU", "Standard Hungarian", "Bence"),
    ("ro", "female", "ro-RO", "Standard Romanian", "Ioana"),
    ("uk", "male", "uk-UA", "Standard Ukrainian", "Taras"),
    ("ko", "female", "ko-KR", "Seoul", "Ji-woo"),
    ("vi", "male", "vi-VN", "Northern (Hanoi)", "Minh"),
    ("id", "female", "id-ID", "Standard Indonesian", "Putri"),
    ("nb", "male", "nb-NO", "Eastern Norwegian", "Lars"),
)


# espeak-ng's numbered variants (each its own pitch, formants and breathiness) of a
# language's voice. Beyond the catalog's one voice per language: dubbing gives every speaker
# of a recording a voice of their own. A variant of a catalog voice is spoken like it.
VARIANTS: Final[dict[str, Gender]] = {
    **{f"m{number}": "male" for number in range(1, 8)},
    **{f"f{number}": "female" for number in range(1, 6)},
}


def variant_voices(voice: EngineVoice) -> list[EngineVoice]:
    """The variants of an espeak voice (its language's voice with each of VARIANTS)."""
    base = voice.voice.split("+")[0]
    return [
        EngineVoice(
            engine=ENGINE,
            voice=f"{base}+{variant}",
            language=voice.language,
            gender=gender,
            accent=voice.accent,
            label=f"{voice.label} ({variant})",
        )
        for variant, gender in VARIANTS.items()
    ]


def _catalog_voices() -> list[EngineVoice]:
    return [
        EngineVoice(
            engine=ENGINE,
            voice=espeak_voice + _FEMALE if gender == "female" else espeak_voice,
            language=language,
            gender=gender,
            accent=accent,
            label=label,
        )
        for espeak_voice, gender, language, accent, label in _CATALOG
    ]


class EspeakEngine(BaseSynthesizer):
    """espeak-ng run once per call; output at its native 22.05 kHz."""

    name = ENGINE

    def __init__(self) -> None:
        self._binary = require_binary("espeak-ng", ENGINE)
        # Distributions split espeak-ng's languages differently: offer only those present.
        installed = self._installed_languages()
        self._voices = [
            voice for voice in _catalog_voices() if voice.voice.split("+")[0] in installed
        ]

    def voices(self) -> list[EngineVoice]:
        return list(self._voices)

    def synthesize(
        self,
        text: str | Sequence[Part],
        voice: str,
        *,
        rate: float = 1.0,
        deterministic: bool = False,
        word_gap_ms: int = 0,
    ) -> Audio:
        """Beyond the protocol, word_gap_ms of silence between words (espeak's -g, in steps
        of 10 ms): dubbing's lines are understood better with 30 (see dubbing.fitting).
        Deterministic anyway: `deterministic` changes nothing."""
        self.check(text, voice, rate)
        return self.speak(
            text, voice, rate=rate, deterministic=deterministic, word_gap_ms=word_gap_ms
        )

    def speak(
        self,
        text: str | Sequence[Part],
        voice: str,
        *,
        rate: float,
        deterministic: bool,
        word_gap_ms: int = 0,
    ) -> Audio:
        with scratch_dir() as workdir:
            wav = workdir / "speech.wav"
            # Text on stdin, UTF-8 (-b 1), not SSML (no -m). espeak still reads [[...]] as
            # its phoneme notation: harmless, it only changes what is said.
            run_tool(
                [
                    self._binary,
                    "-b",
                    "1",
                    "-v",
                    voice,
                    "-s",
                    str(round(_NORMAL_WPM * rate)),
                    "-g",
                    str(max(0, round(word_gap_ms / 10))),
                    "-w",
                    str(wav),
                ],
                engine=ENGINE,
                stdin_text=text if isinstance(text, str) else _with_phonemes(text, voice),
            )
            return read_speech(wav, ENGINE)

    def has_voice(self, voice: str) -> bool:
        """A voice of the catalog, or a variant (VARIANTS) of one."""
        base, _, variant = voice.partition("+")
        if variant in VARIANTS:
            return any(known.voice.partition("+")[0] == base for known in self._voices)
        return any(known.voice == voice for known in self._voices)

    def _installed_languages(self) -> set[str]:
        try:
            listing = run_tool([self._binary, "--voices"], engine=ENGINE)
        except SynthesisFailed as exc:
            raise EngineUnavailable(f"espeak-ng cannot list its voices: {exc.message}") from exc
        # Columns: Pty Language Age/Gender VoiceName File Other-languages
        return {
            line.split()[1].lower() for line in listing.splitlines()[1:] if len(line.split()) >= 2
        }


def _with_phonemes(parts: Sequence[Part], voice: str) -> str:
    """The parts as espeak input: text as it is (but for `[[`, which would open espeak's
    phoneme notation), Phonemes as `[[mnemonics]]`, one space between parts."""
    pieces: list[str] = []
    for part in parts:
        if isinstance(part, str):
            pieces.append(part.replace("[[", "[ [").replace("]]", "] ]"))
        else:
            mnemonics = ipa_to_espeak(part.ipa, voice)
            pieces.append(f"[[{mnemonics}]]" if mnemonics.strip() else part.text)
    return " ".join(piece.strip() for piece in pieces if piece.strip())
