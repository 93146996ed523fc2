"""How a front-end script is cut into the pieces an engine speaks (speech.tts.scripted), on
text alone."""

from __future__ import annotations

from soundstage.engines.tts import text as text_pieces
from soundstage.engines.tts.frontend import reading
from soundstage.speech.tts import scripted


def pieces(text: str) -> list[scripted.ScriptPiece]:
    script = reading.script(text, "en-US", normalization="auto", rules=[])
    return scripted.pieces(script, text)


def test_plain_text_is_cut_as_before() -> None:
    text = "First one. Second one!\n\nA new paragraph. " + "word " * 120
    cut = pieces(text)
    assert [(p.text, p.pause_after_ms) for p in cut[:3]] == [
        ("First one.", text_pieces.PAUSE_AFTER_SENTENCE_MS),
        ("Second one!", text_pieces.PAUSE_AFTER_PARAGRAPH_MS),
        ("A new paragraph.", text_pieces.PAUSE_AFTER_SENTENCE_MS),
    ]
    assert all(len(p.text) <= text_pieces.MAX_PIECE_CHARACTERS for p in cut)
    assert " ".join(p.text for p in cut[3:]) == " ".join(["word"] * 120)
    assert cut[-1].pause_after_ms == 0
    assert not any(p.exact_after or p.exact_before for p in cut)
    # "Dr." does not end a sentence.
    assert [p.text for p in pieces("Dr. Smith is here.")] == ["Doctor Smith is here."]


def test_script_pauses_and_prosody_changes_cut_pieces_exactly() -> None:
    cut = pieces(
        '<speak><break time="300ms"/>Hello <emphasis level="strong">you</emphasis> there.'
        '<break time="700ms"/><break time="100ms"/>Bye<break time="1s"/></speak>'
    )
    assert [(p.text, p.pause_after_ms, p.exact_after) for p in cut] == [
        ("Hello", scripted.PROSODY_JOIN_MS, True),
        ("you", scripted.PROSODY_JOIN_MS, True),
        ("there.", 800, True),
        ("Bye", 1000, True),
    ]
    assert cut[0].pause_before_ms == 300
    assert [p.exact_before for p in cut] == [True, True, True, True]
    assert (cut[1].rate, cut[1].gain_db) == scripted.EMPHASIS["strong"]
