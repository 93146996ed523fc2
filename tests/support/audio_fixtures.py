"""Real recordings for speech tests: LibriVox clips with what they say and when (see
tests/fixtures/librivox/README.md), and the word error rate to score a transcript against them."""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass
from pathlib import Path

import jiwer
import numpy as np
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.media.audio import Audio, decode

LIBRIVOX_DIR = Path(__file__).resolve().parents[1] / "fixtures" / "librivox"

# Case, punctuation and hyphenation are not what a word error rate should count:
# "ill-disposed," and "ill disposed" are the same two words.
_NORMALIZE = jiwer.Compose(
    [
        jiwer.ToLowerCase(),
        jiwer.SubstituteRegexes({r"[-\u2010-\u2015/]": " "}),
        jiwer.RemovePunctuation(),  # type: ignore[no-untyped-call]
        jiwer.RemoveMultipleSpaces(),
        jiwer.Strip(),
        jiwer.ReduceToListOfListOfWords(),
    ]
)


@dataclass(frozen=True)
class ReferenceWord:
    word: str
    start_ms: int
    end_ms: int


@dataclass(frozen=True)
class Clip:
    path: Path
    # What is said, as the book prints it.
    text: str
    # A forced alignment of the words (lower case, "ill disposed" as two), silences left out.
    words: tuple[ReferenceWord, ...]

    @property
    def name(self) -> str:
        return self.path.stem

    def audio(self) -> Audio:
        return decode(self.path)


def librivox_clips() -> list[Clip]:
    """The clips in name order (three, 15 s in all)."""
    clips = []
    for path in sorted(LIBRIVOX_DIR.glob("*.flac")):
        alignment = json.loads(path.with_suffix(".align.json").read_text())
        clips.append(
            Clip(
                path=path,
                text=path.with_suffix(".txt").read_text().strip(),
                words=tuple(ReferenceWord(w, start, end) for w, start, end in alignment),
            )
        )
    return clips


def transcript_words(text: str) -> list[str]:
    """The words a word error rate compares: lower case, hyphens split, no punctuation."""
    words: list[list[str]] = _NORMALIZE(text)
    return words[0] if words else []


def word_error_rate(reference: str, hypothesis: str) -> float:
    """WER after lower-casing and dropping punctuation (hyphens split words)."""
    return float(
        jiwer.wer(
            reference,
            hypothesis,
            reference_transform=_NORMALIZE,
            hypothesis_transform=_NORMALIZE,
        )
    )


def download_audio(client: TestClient, settings: Settings, url: str) -> Audio:
    """Decode the audio behind one of the service's signed media URLs."""
    response = client.get(url.removeprefix(settings.public_base_url))
    assert response.status_code == 200
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "media"
        path.write_bytes(response.content)
        return decode(path)


def longest_silence_ms(audio: Audio) -> int:
    """The longest run of 10 ms frames below -40 dB of the loudest frame."""
    frame = audio.sample_rate // 100
    count = audio.frames // frame
    mono = audio.samples[: count * frame, 0].reshape(count, frame)
    rms = np.sqrt(np.mean(np.square(mono, dtype=np.float64), axis=1))
    longest = run = 0
    for quiet in rms < rms.max() * 10 ** (-40 / 20):
        run = run + 1 if quiet else 0
        longest = max(longest, run)
    return longest * 10
