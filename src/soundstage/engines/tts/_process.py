"""Running a command-line synthesizer (espeak-ng, Festival, flite) and reading the WAV it wrote."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import unicodedata
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from soundstage.engines.errors import EngineUnavailable, SynthesisFailed
from soundstage.engines.tts.base import Part, Phonemes, spoken
from soundstage.engines.tts.phonemes import Syllable, ipa_to_cmu
from soundstage.media.audio import Audio, InvalidMedia, decode

# A piece of text is a sentence or short paragraph, spoken in well under a second of CPU by
# each of these tools; a minute means the tool hangs, not that the text is long.
TOOL_TIMEOUT_SECONDS: Final = 60.0
_STDERR_TAIL: Final = 300
# Festival and flite read bytes as ASCII/Latin-1: typographic quotes and dashes in UTF-8 come
# out as stray letters (Festival spells them, adding a second of noise), so they are mapped to
# their ASCII forms first.
_ASCII_PUNCTUATION: Final = str.maketrans(
    {
        "\u2018": "'",
        "\u2019": "'",
        "\u201a": "'",
        "\u201b": "'",
        "\u201c": '"',
        "\u201d": '"',
        "\u201e": '"',
        "\u00ab": '"',
        "\u00bb": '"',
        "\u2013": ", ",
        "\u2014": ", ",
        "\u2026": "...",
        "\u00a0": " ",
    }
)


def require_binary(program: str, engine: str) -> str:
    """The absolute path of program, or EngineUnavailable when it is not installed."""
    path = shutil.which(program)
    if path is None:
        raise EngineUnavailable(
            f"The {engine} text-to-speech engine is not installed ({program} is missing)."
        )
    return path


def run_tool(
    command: Sequence[str], *, engine: str, stdin_text: str | None = None, encoding: str = "utf-8"
) -> str:
    """Run command (never through a shell), feeding stdin_text; returns its standard output.

    A missing program or a hang is EngineUnavailable; a failing exit is SynthesisFailed."""
    try:
        result = subprocess.run(
            list(command),
            input=None if stdin_text is None else stdin_text.encode(encoding, errors="replace"),
            capture_output=True,
            timeout=TOOL_TIMEOUT_SECONDS,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise EngineUnavailable(
            f"The {engine} engine did not answer within {TOOL_TIMEOUT_SECONDS:.0f} s."
        ) from exc
    except OSError as exc:  # removed or not executable since the engine was set up
        raise EngineUnavailable(f"The {engine} engine could not be started: {exc}.") from exc
    if result.returncode != 0:
        detail = result.stderr.decode("utf-8", errors="replace").strip()[-_STDERR_TAIL:]
        raise SynthesisFailed(
            f"The {engine} engine failed on this text (exit {result.returncode}): {detail}",
            param="text",
        )
    return result.stdout.decode("utf-8", errors="replace")


@contextmanager
def scratch_dir() -> Iterator[Path]:
    """A private directory for one call's input and output files, removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="soundstage-tts-") as name:
        yield Path(name)


def read_speech(path: Path, engine: str) -> Audio:
    """Decode the WAV a tool wrote into mono Audio at its own rate."""
    if not path.is_file() or path.stat().st_size == 0:
        raise SynthesisFailed(f"The {engine} engine produced no audio for this text.", param="text")
    try:
        audio = decode(path, channels=1, param="text")
    except InvalidMedia as exc:
        raise SynthesisFailed(
            f"The {engine} engine produced no audio for this text.", param="text"
        ) from exc
    return spoken(audio.samples, audio.sample_rate, engine)


def ascii_text(text: str) -> str:
    """text as the English-only engines can read it: accents dropped ("café" -> "cafe"),
    typographic punctuation made ASCII, anything else (other scripts) left out."""
    decomposed = unicodedata.normalize("NFKD", text.translate(_ASCII_PUNCTUATION))
    return decomposed.encode("ascii", errors="ignore").decode("ascii")


def latin1_text(text: str) -> str:
    """text as Festival's Italian voices read it (ISO-8859-1): accented letters of Latin-1
    kept ("città"), other accents dropped, typographic punctuation made ASCII, anything else
    left out."""
    composed = unicodedata.normalize("NFKC", text.translate(_ASCII_PUNCTUATION))
    return "".join(
        character
        if ord(character) < 256
        else unicodedata.normalize("NFKD", character).encode("ascii", errors="ignore").decode()
        for character in composed
    )


def stretch(rate: float) -> str:
    """The duration factor for a speed of speech, as a plain decimal both Festival's Scheme and
    flite's --setf parse."""
    return f"{1.0 / rate:.4f}"


# Words given by phonemes reach Festival and flite as made-up words with a lexicon entry of
# their own: pronounceable (flite spells out a word it finds unpronounceable before looking it
# up) and unlike any English word.
_STAND_IN_STEM: Final = "zobalu"
_STAND_IN_SYLLABLES: Final = ("ba", "ke", "mi", "no", "tu")


@dataclass(frozen=True)
class LexiconText:
    """Text for an engine with its own lexicon: Phonemes replaced by stand-in words, and the
    pronunciation of each stand-in in the lexicon's phones (CMU phones by default)."""

    text: str
    entries: dict[str, list[Syllable]]


def lexicon_text(
    text: str | Sequence[Part],
    *,
    readable: Callable[[str], str] = ascii_text,
    syllables_of: Callable[[str], list[Syllable]] = ipa_to_cmu,
) -> LexiconText:
    """text as `readable` makes it (ascii_text by default), Phonemes parts as stand-in words
    (see _STAND_IN_STEM) with their syllables (`syllables_of` their IPA, CMU phones by
    default); a Phonemes with no vowel the voice can say is read as its text."""
    if isinstance(text, str):
        return LexiconText(readable(text), {})
    pieces: list[str] = []
    entries: dict[str, list[Syllable]] = {}
    for part in text:
        if isinstance(part, Phonemes):
            try:
                syllables = syllables_of(part.ipa)
            except ValueError:
                pieces.append(readable(part.text))
                continue
            word = _stand_in(len(entries))
            entries[word] = syllables
            pieces.append(word)
        else:
            pieces.append(readable(part))
    return LexiconText(" ".join(piece.strip() for piece in pieces if piece.strip()), entries)


def _stand_in(index: int) -> str:
    letters = [_STAND_IN_SYLLABLES[index % len(_STAND_IN_SYLLABLES)]]
    index //= len(_STAND_IN_SYLLABLES)
    while index:
        letters.append(_STAND_IN_SYLLABLES[index % len(_STAND_IN_SYLLABLES)])
        index //= len(_STAND_IN_SYLLABLES)
    return _STAND_IN_STEM + "".join(letters)
