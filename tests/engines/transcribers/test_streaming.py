"""The live recognizer's text rules that need no model: a looping partial is cut to its first
turn, and anything else is left as Whisper wrote it."""

from __future__ import annotations

import pytest

from soundstage.engines.transcribers.partials import partial_token_budget
from soundstage.engines.transcribers.streaming import without_loop


@pytest.mark.parametrize(
    ("looping", "kept"),
    [
        # Seen in CI: a greedy partial on the LibriVox clips, prompted with earlier finals.
        (
            "He was not an ill-disposed young man. I-I-I-I-I-I-I-I-I",
            "He was not an ill-disposed young man. I",
        ),
        ("and then the the the the the the", "and then the"),
        ("how much ______________", "how much _"),
        ("He was not. He was not. He was not. He was not.", "He was not."),
    ],
)
def test_a_loop_at_the_end_keeps_its_first_turn(looping: str, kept: str) -> None:
    assert without_loop(looping) == kept


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Hello world.",
        "wait...",
        "ha ha ha",
        "I-I said no",
        "the the the the, he said",  # a loop the decode came out of is not at the end
        "in his power to consider how much there might be in his power to consider how much",
    ],
)
def test_other_text_is_left_alone(text: str) -> None:
    assert without_loop(text) == text


def test_a_partial_budget_grows_with_the_audio_and_shrinks_with_the_prefix() -> None:
    assert partial_token_budget(1.0, 0) < partial_token_budget(3.0, 0)
    assert partial_token_budget(3.0, 10) == partial_token_budget(3.0, 0) - 10
    # However long the forced prefix, the decode may still write a word or two.
    assert partial_token_budget(1.0, 500) == 2
