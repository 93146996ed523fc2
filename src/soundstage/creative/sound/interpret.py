"""From prompt to scene: split the prompt into the elements it names, match each onto a recipe
by sentence-embedding similarity, and read the adjectives that steer it."""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Final

import numpy as np

from soundstage.creative.sound.embedder import Embeddings, TextEmbedder
from soundstage.creative.sound.errors import PromptNotUnderstood
from soundstage.creative.sound.recipes import RECIPES, Recipe
from soundstage.creative.sound.steering import SPACES, Steering, find_modifiers, strip_modifiers

MAX_LAYERS: Final = 4
# A piece of a prompt becomes a layer of its own when it matches a recipe at least this well;
# otherwise it is read as more words about the element before it ("glass breaking and
# falling"). A lone word ("wind", "water") must match better: alone, a word is easily near
# some description without naming that sound.
LAYER_SIMILARITY: Final = 0.5
ONE_WORD_LAYER_SIMILARITY: Final = 0.7
# Below this, the whole prompt names nothing the service can make.
MIN_SIMILARITY: Final = 0.4
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
    r"\bamid(?:st)?\b|\bplus\b|\band\b|\bwith\b)\s*",
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


class RecipeIndex:
    """The recipes' descriptions, embedded once; a text's best recipe is the one with the most
    similar description."""

    def __init__(self, embedder: TextEmbedder) -> None:
        self.embedder = embedder
        self.owners: list[Recipe] = []
        phrases: list[str] = []
        for recipe in RECIPES.values():
            for phrase in (recipe.name.replace("_", " "), recipe.label, *recipe.descriptions):
                phrases.append(phrase)
                self.owners.append(recipe)
        self.vectors: Embeddings = embedder.embed(phrases)

    def best(self, texts: list[str]) -> list[tuple[Recipe, float]]:
        """For each text, the closest recipe and its similarity. A text is compared both as
        written and without its steering words, whichever matches better."""
        bare = [strip_modifiers(text) or text for text in texts]
        scores = self.embedder.embed([*texts, *bare]) @ self.vectors.T
        scores = np.maximum(scores[: len(texts)], scores[len(texts) :])
        return [(self.owners[int(row.argmax())], float(row.max())) for row in scores]


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


def interpret(prompt: str, index: RecipeIndex) -> list[Element]:
    """The scene a prompt describes: at most four elements, in the order written. Raises
    PromptNotUnderstood when nothing in it resembles a sound the service can make."""
    pieces = _pieces(prompt) or [(prompt, False)]
    matches = index.best([prompt, *(piece for piece, _ in pieces)])
    whole, matches = matches[0], matches[1:]
    groups: list[tuple[list[str], Recipe, float, bool]] = []
    pending: list[str] = []  # words met before the first layer: they belong to it
    for (piece, sequenced), (recipe, similarity) in zip(pieces, matches, strict=True):
        used = [group[1].name for group in groups]
        fresh = recipe.name not in used and len(groups) < MAX_LAYERS
        if fresh and similarity >= _layer_threshold(piece):
            groups.append(([*pending, piece], recipe, similarity, sequenced and bool(groups)))
            pending = []
        elif groups:
            groups[-1][0].append(piece)
        else:
            pending.append(piece)
    if len(groups) <= 1:
        # One element: the prompt as a whole may say better what it is.
        if not groups or whole[1] > groups[0][2]:
            if whole[1] < MIN_SIMILARITY or not _content_words(prompt):
                raise PromptNotUnderstood(
                    "prompt: it names no sound this service can make; describe the sound "
                    "itself (e.g. 'a dog barking in the distance', 'rain on a tin roof').",
                    param="prompt",
                )
            groups = [([prompt], *whole, False)]
        else:
            groups = [([prompt], groups[0][1], groups[0][2], False)]
    space = next((m for m in find_modifiers(prompt) if m in SPACES), None)
    return [
        Element(
            " ".join(words),
            recipe,
            round(similarity, 3),
            Steering(find_modifiers(" ".join(words))).with_space(space),
            after_previous,
        )
        for words, recipe, similarity, after_previous in groups
    ]
