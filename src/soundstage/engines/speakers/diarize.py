"""Who spoke when: speech regions (silero-vad), windows of 0.8 s inside them embedded with
resemblyzer, clustered into speakers, smoothed and joined into speaker turns."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from dataclasses import dataclass
from itertools import pairwise
from typing import Final, Protocol

import numpy as np
import numpy.typing as npt

from soundstage.engines.speakers.base import Progress, Region
from soundstage.engines.speakers.clustering import cluster
from soundstage.engines.speakers.embeddings import DEFAULT_WINDOW_S, embed_windows
from soundstage.engines.speakers.vad import speech_regions
from soundstage.media.audio import Audio

MAX_SPEAKERS: Final = 20
WINDOW_S: Final = DEFAULT_WINDOW_S
HOP_S: Final = 0.1
# Each window is clustered as the mean of itself and this many neighbours on each side in
# the same region (1.2 s of speech in all): 0.8 s alone is too little to tell two similar
# voices apart, and a longer window would blur the turns.
_CONTEXT_WINDOWS: Final = 2
# A speaker's pauses up to this long stay inside one turn.
_MAX_PAUSE_MS: Final = 1000
# Share of a piece's progress taken by finding speech; embedding takes the rest.
_VAD_SHARE: Final = 0.2


class Timed(Protocol):
    """Anything with a time span, such as a transcript's words or segments."""

    @property
    def start_ms(self) -> int: ...

    @property
    def end_ms(self) -> int: ...


@dataclass(frozen=True)
class SpeakerTurn:
    """One speaker talking without another in between, in milliseconds from the start of the
    recording; speakers are speaker_1, speaker_2, ... in order of first appearance."""

    speaker: str
    start_ms: int
    end_ms: int


def diarize(
    audio: Audio, *, num_speakers: int | None = None, progress: Progress | None = None
) -> list[SpeakerTurn]:
    """The speaker turns of a recording, in time order (see Diarizer.finish)."""
    diarizer = Diarizer()
    diarizer.add(audio, progress=_scaled(progress, 0.0, 0.95))
    turns = diarizer.finish(num_speakers=num_speakers)
    if progress is not None:
        progress(1.0)
    return turns


class Diarizer:
    """Diarization of a recording handed over in consecutive pieces (as it is decoded): each
    piece's speech is found and embedded when it comes, so only the window embeddings are
    kept (1 KB per 0.1 s of speech), never more audio than the piece at hand. One per
    recording; not for several threads at once."""

    def __init__(self) -> None:
        self._regions: list[Region] = []
        self._starts_ms: list[npt.NDArray[np.int64]] = []
        self._embeddings: list[npt.NDArray[np.float32]] = []
        self._end_ms = 0

    def add(self, audio: Audio, offset_ms: int = 0, *, progress: Progress | None = None) -> None:
        """Take the next piece, which starts offset_ms into the recording."""
        if offset_ms < self._end_ms:
            raise ValueError("pieces must come in order, without overlapping")
        self._end_ms = offset_ms + audio.duration_ms
        regions = speech_regions(audio, progress=_scaled(progress, 0.0, _VAD_SHARE))
        if not regions:
            return
        starts_ms, embeddings = embed_windows(
            audio,
            window_s=WINDOW_S,
            hop_s=HOP_S,
            regions=regions,
            progress=_scaled(progress, _VAD_SHARE, 1.0 - _VAD_SHARE),
        )
        self._regions += [
            Region(region.start_ms + offset_ms, region.end_ms + offset_ms) for region in regions
        ]
        self._starts_ms.append(starts_ms + offset_ms)
        self._embeddings.append(embeddings)

    def finish(self, *, num_speakers: int | None = None) -> list[SpeakerTurn]:
        """The speaker turns, in time order. Without num_speakers the number of speakers is
        found (at most MAX_SPEAKERS); with it there are exactly that many, unless there is
        too little speech for them. No speech gives no turns."""
        if num_speakers is not None and not 1 <= num_speakers <= MAX_SPEAKERS:
            raise ValueError(f"num_speakers must be 1..{MAX_SPEAKERS}")
        if not self._regions:
            return []
        centers_ms = np.concatenate(self._starts_ms) + round(WINDOW_S * 500)
        embeddings = np.concatenate(self._embeddings)
        region_of = _region_of(centers_ms, self._regions)
        labels = cluster(
            _with_context(embeddings, region_of, _CONTEXT_WINDOWS),
            rows_per_s=1 / HOP_S,
            num_speakers=num_speakers,
            max_speakers=MAX_SPEAKERS,
        )
        labels = _without_flips(labels, region_of)
        return _turns(centers_ms, labels, region_of, self._regions)


def assign_speakers(items: Sequence[Timed], turns: Sequence[SpeakerTurn]) -> list[str | None]:
    """The speaker of each item (a word, a segment): the turn overlapping it most or, if
    none overlaps it, the nearest. None for every item when there are no turns."""
    ordered = sorted(turns, key=lambda turn: turn.start_ms)
    starts = [turn.start_ms for turn in ordered]
    # latest[i]: the turn ending last among ordered[:i + 1]. Scanning back from the item, once
    # that one ends before the item starts, nothing earlier can overlap it, and it is the
    # nearest turn before it.
    latest: list[int] = []
    for index, turn in enumerate(ordered):
        latest.append(
            index if not latest or turn.end_ms > ordered[latest[-1]].end_ms else latest[-1]
        )
    speakers: list[str | None] = []
    for item in items:
        after = bisect.bisect_left(starts, item.end_ms)
        candidates = [after] if after < len(ordered) else []
        index = after - 1
        while index >= 0 and ordered[latest[index]].end_ms > item.start_ms:
            candidates.append(index)
            index -= 1
        if index >= 0:
            candidates.append(latest[index])
        # Overlap when positive, minus the gap when not: the largest is the best turn.
        best = max(candidates, key=lambda i: _overlap_ms(item, ordered[i]), default=None)
        speakers.append(None if best is None else ordered[best].speaker)
    return speakers


def _overlap_ms(item: Timed, turn: SpeakerTurn) -> int:
    return min(item.end_ms, turn.end_ms) - max(item.start_ms, turn.start_ms)


def _scaled(progress: Progress | None, begin: float, share: float) -> Progress | None:
    if progress is None:
        return None
    return lambda fraction: progress(begin + share * fraction)


def _region_of(
    centers_ms: npt.NDArray[np.int64], regions: Sequence[Region]
) -> npt.NDArray[np.int64]:
    """The region each window belongs to: the last one starting at or before its center
    (a window centered on a short region may reach outside it)."""
    region_starts = np.asarray([region.start_ms for region in regions], dtype=np.int64)
    return np.maximum(np.searchsorted(region_starts, centers_ms, side="right") - 1, 0)


def _runs(region_of: npt.NDArray[np.int64]) -> list[tuple[int, int]]:
    """[begin, end) index ranges of consecutive windows in the same region."""
    edges = np.flatnonzero(np.diff(region_of)) + 1
    bounds = [0, *edges.tolist(), int(region_of.size)]
    return list(pairwise(bounds))


def _with_context(
    embeddings: npt.NDArray[np.float32], region_of: npt.NDArray[np.int64], reach: int
) -> npt.NDArray[np.float32]:
    out = np.empty_like(embeddings)
    for begin, end in _runs(region_of):
        run = embeddings[begin:end].astype(np.float64)
        sums = np.concatenate([np.zeros((1, run.shape[1])), np.cumsum(run, axis=0)])
        index = np.arange(end - begin)
        low = np.maximum(index - reach, 0)
        high = np.minimum(index + reach + 1, end - begin)
        mean = (sums[high] - sums[low]) / (high - low)[:, None]
        out[begin:end] = mean / np.linalg.norm(mean, axis=1, keepdims=True)
    return out


def _without_flips(
    labels: npt.NDArray[np.int64], region_of: npt.NDArray[np.int64]
) -> npt.NDArray[np.int64]:
    """A window whose two neighbours in its region agree with each other but not with it
    takes their speaker: 0.1 s turns are noise."""
    out = labels.copy()
    for index in range(1, labels.size - 1):
        same_region = region_of[index - 1] == region_of[index] == region_of[index + 1]
        if same_region and out[index - 1] == labels[index + 1] != out[index]:
            out[index] = out[index - 1]
    return out


def _turns(
    centers_ms: npt.NDArray[np.int64],
    labels: npt.NDArray[np.int64],
    region_of: npt.NDArray[np.int64],
    regions: Sequence[Region],
) -> list[SpeakerTurn]:
    """Each window speaks for the time up to halfway to its neighbours in the region (the
    first and last for the rest of it); same-speaker pieces with short pauses between join."""
    pieces: list[tuple[int, int, int]] = []  # (cluster, start_ms, end_ms)
    for begin, end in _runs(region_of):
        region = regions[int(region_of[begin])]
        bounds = [region.start_ms]
        bounds += ((centers_ms[begin + 1 : end] + centers_ms[begin : end - 1]) // 2).tolist()
        bounds.append(region.end_ms)
        for offset, index in enumerate(range(begin, end)):
            start_ms, end_ms = bounds[offset], bounds[offset + 1]
            label = int(labels[index])
            if pieces and pieces[-1][0] == label and start_ms - pieces[-1][2] <= _MAX_PAUSE_MS:
                pieces[-1] = (label, pieces[-1][1], end_ms)
            elif end_ms > start_ms:
                pieces.append((label, start_ms, end_ms))
    names: dict[int, str] = {}
    for label, _, _ in pieces:
        names.setdefault(label, f"speaker_{len(names) + 1}")
    return [SpeakerTurn(names[label], start_ms, end_ms) for label, start_ms, end_ms in pieces]
