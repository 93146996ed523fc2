"""From prompt to scene: split the prompt into the elements it names, match each onto a recipe
by sentence-embedding similarity (or, when no recipe is a sure match, onto a blend of the
closest few), and read the adjectives that steer it. No prompt is refused: the weakest match
is still the closest sound the service can make, and the answer says how close."""

from __future__ import annotations

import math
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final

import numpy as np

from soundstage.engines.embedder import Embeddings, TextEmbedder
from soundstage.engines.sound.recipes import RECIPES, Recipe
from soundstage.engines.sound.steering import SPACES, Steering, find_modifiers, strip_modifiers

MAX_LAYERS: Final = 4
# A piece of a prompt becomes a layer of its own when it matches a recipe at least this well;
# otherwise it is read as more words about the element before it ("glass breaking and
# falling"). A lone word ("wind", "water") must match better: alone, a word is easily near
# some description without naming that sound.
LAYER_SIMILARITY: Final = 0.5
ONE_WORD_LAYER_SIMILARITY: Final = 0.7
# An element whose closest recipe matches at least this well is that recipe alone; below,
# it is a blend of its two closest recipes, and the third when its share is at least
# MIN_SHARE, each weighted by exp(similarity / BLEND_TEMPERATURE) (normalized).
SURE_SIMILARITY: Final = 0.6
MIN_BLEND: Final = 2
MAX_BLEND: Final = 3
BLEND_TEMPERATURE: Final = 0.05
MIN_SHARE: Final = 0.1
_FILLER: Final = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "some",
        "someone",
        "somebody",
        "something",
        "sound",
        "sounds",
        "noise",
        "noises",
        "in",
        "on",
        "at",
        "to",
        "from",
        "by",
        "into",
        "onto",
        "is",
        "are",
        "being",
        "its",
        "their",
        "my",
        "your",
        "his",
        "her",
    ]
)

# Words that join the elements of a scene: "rain on a tin roof with distant thunder".
_JOINERS: Final = re.compile(
    r"\s*([,;]|&|\+|\band then\b|\bthen\b|\bfollowed by\b|\bafter that\b|\bwhile\b|"
    r"\bas well as\b|\balong with\b|\btogether with\b|\bmixed with\b|\bover\b|\bunder\b|"
    r"\bamid(?:st)?\b|\bduring\b|\bplus\b|\band\b|\bwith\b)\s*",
    re.IGNORECASE,
)
# Joiners that put the next element after the previous one instead of with it.
_SEQUENCE: Final = re.compile(r"\b(?:then|followed by|after that)\b", re.IGNORECASE)


@dataclass(frozen=True)
class Element:
    """One layer of the scene: the words of the prompt it comes from, the recipe they match,
    how well (cosine similarity) and the modifiers that steer it."""

    text: str
    recipe: Recipe
    similarity: float
    steering: Steering
    # Joined by "then" / "followed by": it starts once the previous element's first sound ends.
    after_previous: bool = False
    # The recipes mixed for this element with their weights (summing to 1), the closest
    # first; empty means `recipe` alone.
    blend: tuple[tuple[Recipe, float], ...] = ()

    @property
    def mix(self) -> tuple[tuple[Recipe, float], ...]:
        return self.blend or ((self.recipe, 1.0),)


Ranking = list[tuple[Recipe, float]]


class RecipeIndex:
    """The recipes' descriptions, embedded once; a text's best recipe is the one with the most
    similar description."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder
        self.recipes: list[Recipe] = list(RECIPES.values())
        # Each recipe's phrases sit together: starts[i] is where recipe i's begin.
        self.starts: list[int] = []
        phrases: list[str] = []
        for recipe in self.recipes:
            self.starts.append(len(phrases))
            phrases.extend((recipe.name.replace("_", " "), recipe.label, *recipe.descriptions))
        self.vectors: Embeddings = embedder.embed(phrases)

    def rank(self, texts: Sequence[str]) -> list[Ranking]:
        """For each text, every recipe with its similarity (that of its closest phrase), the
        closest first. A text is compared both as written and without its steering words,
        whichever matches better."""
        bare = [strip_modifiers(text) or text for text in texts]
        scores = self.embedder.embed([*texts, *bare]) @ self.vectors.T
        scores = np.maximum(scores[: len(texts)], scores[len(texts) :])
        per_recipe = np.maximum.reduceat(scores, self.starts, axis=1)
        return [
            [(self.recipes[i], float(row[i])) for i in np.argsort(-row, kind="stable")]
            for row in per_recipe
        ]

    def best(self, texts: Sequence[str]) -> list[tuple[Recipe, float]]:
        """For each text, the closest recipe and its similarity."""
        return [ranking[0] for ranking in self.rank(texts)]


_INDEXES: dict[int, RecipeIndex] = {}
_LOCK = threading.Lock()


def index_for(embedder: TextEmbedder) -> RecipeIndex:
    with _LOCK:
        if id(embedder) not in _INDEXES:
            _INDEXES[id(embedder)] = RecipeIndex(embedder)
        return _INDEXES[id(embedder)]


def split(prompt: str) -> list[str]:
    return [piece for piece, _ in _pieces(prompt)]


def _pieces(prompt: str) -> list[tuple[str, bool]]:
    """The prompt's pieces between joiners, each with whether a sequencing joiner ("then")
    came before it."""
    parts = _JOINERS.split(prompt)
    pieces: list[tuple[str, bool]] = []
    sequenced = False
    for position, part in enumerate(parts):
        if position % 2:  # a joiner
            sequenced = sequenced or bool(_SEQUENCE.search(part))
        elif part and part.strip(" .!?-"):
            pieces.append((part, sequenced and bool(pieces)))
            sequenced = False
    return pieces


def _content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[\w'-]+", strip_modifiers(text).lower()) if w not in _FILLER]


def _layer_threshold(piece: str) -> float:
    return ONE_WORD_LAYER_SIMILARITY if len(_content_words(piece)) <= 1 else LAYER_SIMILARITY


def blend(
    ranking: Ranking, taken: frozenset[str] = frozenset()
) -> tuple[tuple[Recipe, float], ...]:
    """The recipes an element is made of, with their weights: the closest alone when it is a
    sure match, else the two or three closest (leaving out those other layers are made of),
    weighted by how much closer each is than the rest."""
    (first, top), *others = ranking
    if top >= SURE_SIMILARITY:
        return ((first, 1.0),)
    closest = [(first, top), *((r, s) for r, s in others if r.name not in taken)][:MAX_BLEND]
    raw = [(r, math.exp((s - top) / BLEND_TEMPERATURE)) for r, s in closest]
    whole = sum(w for _, w in raw)
    kept = raw[:MIN_BLEND] + [(r, w) for r, w in raw[MIN_BLEND:] if w / whole >= MIN_SHARE]
    total = sum(w for _, w in kept)
    return tuple((r, round(w / total, 3)) for r, w in kept)


def confidence(elements: Sequence[Element]) -> float:
    """How sure the reading of a prompt is, 0 to 1: the mean over its elements of the
    similarity of each element's words to its closest recipe."""
    if not elements:
        return 0.0
    mean = sum(min(max(e.similarity, 0.0), 1.0) for e in elements) / len(elements)
    return round(mean, 3)


def interpret(prompt: str, index: RecipeIndex) -> list[Element]:
    """The scene a prompt describes: at most four elements, in the order written. Never
    refuses: a prompt that names no sound the service knows is the blend of its closest
    recipes (with a low similarity to tell it)."""
    pieces = _pieces(prompt) or [(prompt, False)]
    rankings = index.rank([prompt, *(piece for piece, _ in pieces)])
    whole, rankings = rankings[0], rankings[1:]
    groups: list[tuple[list[str], Ranking, bool]] = []
    pending: list[str] = []  # words met before the first layer: they belong to it
    for (piece, sequenced), ranking in zip(pieces, rankings, strict=True):
        recipe, similarity = ranking[0]
        used = [group[1][0][0].name for group in groups]
        fresh = recipe.name not in used and len(groups) < MAX_LAYERS
        if fresh and similarity >= _layer_threshold(piece):
            groups.append(([*pending, piece], ranking, sequenced and bool(groups)))
            pending = []
        elif groups:
            groups[-1][0].append(piece)
        else:
            pending.append(piece)
    if len(groups) <= 1:
        # One element: the prompt as a whole may say better what it is.
        if not groups or whole[0][1] > groups[0][1][0][1]:
            groups = [([prompt], whole, False)]
        else:
            groups = [([prompt], groups[0][1], False)]
    space = next((m for m in find_modifiers(prompt) if m in SPACES), None)
    mains = [ranking[0][0].name for _, ranking, _ in groups]
    elements = []
    for words, ranking, after_previous in groups:
        text = " ".join(words)
        mix = blend(ranking, frozenset(mains) - {ranking[0][0].name})
        elements.append(
            Element(
                text,
                ranking[0][0],
                round(ranking[0][1], 3),
                Steering(find_modifiers(text)).with_space(space),
                after_previous,
                mix if len(mix) > 1 else (),
            )
        )
    return elements
