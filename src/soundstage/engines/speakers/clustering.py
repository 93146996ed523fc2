"""Speakers from window embeddings: divisive clustering whose splits are found by
agglomerative (average-linkage, cosine) clustering and refined by nearest centroid.

Splitting from the top, rather than cutting one dendrogram of every window, is what makes
the number of speakers come out right. In one dendrogram the last merges are a few odd
windows (a laugh, a cough), not speakers; and a single voice splits into parts nearly as far
apart as two similar voices are. A cluster is split in two only while the halves' centroids
lie SPLIT_DISTANCE apart (more for halves of a few seconds), and a half counts as a speaker
only if it talks in turns: halves of one voice stay under the distance, two voices go over
it, and windows that merely sound alike across voices (phrase starts) come in moments.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]
Labels = npt.NDArray[np.int64]

# Cosine distance between the centroids of two halves from which they are two speakers
# (docs/calibration.md, "Speaker clustering thresholds", as are the bounds below).
SPLIT_DISTANCE: Final = 0.08
# A speaker found automatically has at least MIN_SPEAKER_S of windows (a region of speech
# holds 0.8 s less of window starts than its length: two turns of 3 s give 4.4 s). A half
# smaller than SURE_SPEAKER_S has a noisier centroid: it must lie further off, by
# sqrt(SURE_SPEAKER_S / its length).
MIN_SPEAKER_S: Final = 2.0
SURE_SPEAKER_S: Final = 5.0
# People talk in turns: a half of a split is a speaker only if it holds speech this long on
# average between changes (odd windows from phrase starts come to less).
MIN_MEAN_TURN_S: Final = 1.2
# Halves this far apart are different voices, not one voice's phrase starts: they may talk
# in shorter turns, down to MIN_MEAN_TURN_FAR_S.
FAR_DISTANCE: Final = 0.2
MIN_MEAN_TURN_FAR_S: Final = 0.9
# Clusters seeding a split must each hold this share of the cluster being split: smaller
# ones are odd windows, not voices.
_SEED_SHARE: Final = 0.1
# Beyond this many windows, splits are found on an evenly spaced subset (the agglomerative
# step takes memory and time quadratic in the number of points).
_MAX_POINTS: Final = 2000
_REFINE_ROUNDS: Final = 10


def cluster(
    vectors: Vectors, *, rows_per_s: float, num_speakers: int | None, max_speakers: int
) -> Labels:
    """A speaker index per row of vectors (unit rows in time order, rows_per_s of them per
    second of speech), numbered 0..k-1 in no special order.

    With num_speakers, exactly that many (fewer only if there are fewer rows); otherwise as
    many as SPLIT_DISTANCE finds, at most max_speakers."""
    count = vectors.shape[0]
    if count < 2 or num_speakers == 1:
        return np.zeros(count, dtype=np.int64)
    step = -(-count // _MAX_POINTS)
    points = _Points(vectors[::step], rows_per_s / step)
    if num_speakers is None:
        groups = _split_while_apart(points, max_speakers)
    else:
        groups = _split_into(points.vectors, points.min_size, num_speakers)
    # Every row goes to the nearest speaker as the groups found them; refining over all rows
    # again would let the points left out (see _split_while_apart) pull the centroids.
    centroids = np.stack([_centroid(points.vectors[group]) for group in groups])
    return _nearest(vectors, centroids)


@dataclass(frozen=True)
class _Points:
    """The rows the splits are found on, in time order."""

    vectors: Vectors
    per_s: float

    @property
    def min_size(self) -> int:
        return max(2, round(MIN_SPEAKER_S * self.per_s))


def _split_while_apart(points: _Points, max_speakers: int) -> list[Labels]:
    todo = [np.arange(points.vectors.shape[0])]
    done: list[Labels] = []
    while todo and len(todo) + len(done) < max_speakers:
        group = todo.pop(0)
        halves = _split(points.vectors[group], points.min_size)
        kept = [] if halves is None else _speaking_halves(points, group, *halves)
        if not kept:
            done.append(group)
        else:
            # A half left out is scattered moments of every voice (phrase starts, say): its
            # points go to the nearest speaker at the end.
            todo += kept
    return done + todo


def _speaking_halves(
    points: _Points, group: Labels, labels: Labels, distance: float
) -> list[Labels]:
    """The halves of group that are speakers of their own: none when the halves are not far
    enough apart for their size; else those that talk in turns rather than in moments."""
    smaller_s = np.bincount(labels, minlength=2).min() / points.per_s
    needed = SPLIT_DISTANCE * max(1.0, float(np.sqrt(SURE_SPEAKER_S / smaller_s)))
    if distance < needed:
        return []
    sequence = np.full(points.vectors.shape[0], -1, dtype=np.int64)
    sequence[group] = labels
    starts_turn = np.ones(sequence.size, dtype=bool)
    starts_turn[1:] = sequence[1:] != sequence[:-1]
    min_turn_s = MIN_MEAN_TURN_FAR_S if distance >= FAR_DISTANCE else MIN_MEAN_TURN_S
    kept = []
    for half in (0, 1):
        turns = np.count_nonzero(starts_turn & (sequence == half))
        if np.count_nonzero(sequence == half) / turns / points.per_s >= min_turn_s:
            kept.append(group[labels == half])
    return kept


def _split_into(points: Vectors, min_size: int, count: int) -> list[Labels]:
    """Split the cluster whose halves lie furthest apart until there are count clusters;
    when no cluster has two halves of min_size left, any split will do."""
    groups = [np.arange(points.shape[0])]
    while len(groups) < count:
        best: tuple[float, int, Labels] | None = None
        for size in (min_size, 1):
            for index, group in enumerate(groups):
                halves = _split(points[group], size)
                if halves is not None and (best is None or halves[1] > best[0]):
                    best = (halves[1], index, halves[0])
            if best is not None:
                break
        if best is None:
            break
        _, index, labels = best
        group = groups.pop(index)
        groups += [group[labels == 0], group[labels == 1]]
    return groups


def _split(points: Vectors, min_size: int) -> tuple[Labels, float] | None:
    """The points in two (labels 0/1) and the cosine distance between the halves'
    centroids; None if they cannot make two halves of min_size."""
    from scipy.cluster.hierarchy import fcluster, linkage  # where used: not in an API process

    count = points.shape[0]
    if count < 2 * min_size or count < 2:
        return None
    tree = linkage(points.astype(np.float64), method="average", metric="cosine")
    # Cut the tree as high as leaves two clusters big enough to be voices, then let those
    # clusters (merged down to two) take every point by nearest centroid.
    seeds: list[Vectors] = []
    for clusters in range(2, min(count, 22) + 1):
        labels = fcluster(tree, clusters, criterion="maxclust") - 1
        sizes = np.bincount(labels)
        big = np.flatnonzero(sizes >= max(2, _SEED_SHARE * count))
        if big.size >= 2:
            seeds = [_centroid(points[labels == label]) for label in big]
            break
    if not seeds:
        labels = fcluster(tree, 2, criterion="maxclust") - 1
        seeds = [_centroid(points[labels == label]) for label in np.unique(labels)]
    centroids = _merge_down(points, _refine(points, np.stack(seeds)), 2)
    if centroids.shape[0] < 2:
        return None
    labels = _nearest(points, centroids)
    if np.bincount(labels, minlength=2).min() < min_size:
        return None
    return labels, float(1.0 - centroids[0] @ centroids[1])


def _merge_down(points: Vectors, centroids: Vectors, count: int) -> Vectors:
    """Merge the two closest clusters until count are left, refining after each merge."""
    while centroids.shape[0] > count:
        similarities = centroids @ centroids.T
        np.fill_diagonal(similarities, -np.inf)
        first, second = np.unravel_index(np.argmax(similarities), similarities.shape)
        labels = _nearest(points, centroids)
        labels[labels == second] = first
        kept = [label for label in range(centroids.shape[0]) if label != second]
        centroids = _refine(points, np.stack([_centroid(points[labels == k]) for k in kept]))
    return centroids


def _refine(points: Vectors, centroids: Vectors) -> Vectors:
    """Nearest-centroid rounds (spherical k-means); a centroid left without points goes."""
    for _ in range(_REFINE_ROUNDS):
        labels = _nearest(points, centroids)
        used = np.unique(labels)
        updated = np.stack([_centroid(points[labels == label]) for label in used])
        if updated.shape == centroids.shape and np.allclose(updated, centroids):
            break
        centroids = updated
    return centroids


def _nearest(points: Vectors, centroids: Vectors) -> Labels:
    labels: Labels = np.argmax(points @ centroids.T, axis=1).astype(np.int64)
    return labels


def _centroid(points: Vectors) -> Vectors:
    mean = points.mean(axis=0)
    unit: Vectors = (mean / np.linalg.norm(mean)).astype(np.float32)
    return unit
