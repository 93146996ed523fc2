"""Text streamed into a realtime session is cut where speech may start: complete sentences at
once, long enough clauses, overlong text at a word; every character sent is counted once."""

from __future__ import annotations

from soundstage.engines.tts.text import (
    MAX_PIECE_CHARACTERS,
    PAUSE_AFTER_CLAUSE_MS,
    PAUSE_AFTER_PARAGRAPH_MS,
    PAUSE_AFTER_SENTENCE_MS,
)
from soundstage.speech.tts.segments import Cut, Segmenter


def fed(segmenter: Segmenter, text: str) -> list[Cut]:
    segmenter.add(text)
    cuts = []
    while (cut := segmenter.next_cut()) is not None:
        cuts.append(cut)
    return cuts


def test_a_sentence_is_complete_once_white_space_follows_its_end() -> None:
    segmenter = Segmenter()
    assert fed(segmenter, "Hello") == []
    assert fed(segmenter, " there.") == []  # "there.5" could still follow
    assert fed(segmenter, " ") == [Cut("Hello there.", PAUSE_AFTER_SENTENCE_MS, 13)]
    assert segmenter.buffered == 0


def test_abbreviations_and_initials_do_not_end_a_sentence() -> None:
    segmenter = Segmenter()
    assert fed(segmenter, "Ask Dr. Smith and J. R. Jones ") == []
    assert fed(segmenter, "now. ") == [
        Cut("Ask Dr. Smith and J. R. Jones now.", PAUSE_AFTER_SENTENCE_MS, 35)
    ]


def test_a_clause_is_cut_once_it_reaches_the_schedule() -> None:
    segmenter = Segmenter(schedule=(20, 40))
    # Too short for the first length (20): no cut at the comma.
    assert fed(segmenter, "Well, ") == []
    cuts = fed(segmenter, "the keeper said slowly, and then ")
    assert cuts == [Cut("Well, the keeper said slowly,", PAUSE_AFTER_CLAUSE_MS, 30)]
    # The second piece needs 40 characters before a clause mark.
    assert fed(segmenter, "he climbed the stairs, ") == []
    cuts = fed(segmenter, "counted the steps out of habit, and lit the lamp")
    assert [cut.text for cut in cuts] == [
        "and then he climbed the stairs, counted the steps out of habit,"
    ]


def test_text_without_breaks_is_cut_at_a_word_before_the_limit() -> None:
    segmenter = Segmenter()
    words = " ".join(["word"] * 100)
    cuts = fed(segmenter, words)
    assert len(cuts) == 1
    assert len(cuts[0].text) <= MAX_PIECE_CHARACTERS
    assert cuts[0].text.endswith("word")
    assert cuts[0].pause_after_ms == 0
    rest = segmenter.next_cut(flush=True)
    assert rest is not None
    assert cuts[0].characters + rest.characters == len(words)


def test_paragraph_breaks_and_flush() -> None:
    segmenter = Segmenter()
    assert fed(segmenter, "First part\n\nSecond part") == [
        Cut("First part", PAUSE_AFTER_PARAGRAPH_MS, 12)
    ]
    assert segmenter.next_cut(flush=True) == Cut("Second part", 0, 11)
    assert segmenter.next_cut(flush=True) is None


def test_white_space_alone_is_never_a_piece_nor_counted() -> None:
    segmenter = Segmenter()
    segmenter.add("  \n ")
    assert segmenter.next_cut(flush=True) is None


def test_every_character_sent_is_counted_once() -> None:
    text = (
        "The old lighthouse stood at the edge of the cliff, its white paint peeling. Every "
        "evening the keeper climbed the stairs; he counted them.\n\nShips passed at night: "
        "they never saw him, but they trusted the light! Did they know? Perhaps"
    )
    segmenter = Segmenter()
    counted = 0
    for word in text.split(" "):
        counted += sum(cut.characters for cut in fed(segmenter, word + " "))
    last = segmenter.next_cut(flush=True)
    assert last is not None
    assert last.text == "Perhaps"
    # Each word was sent with a space after it: the text and one last space.
    assert counted + last.characters == len(text) + 1
