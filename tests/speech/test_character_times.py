"""The character times of ElevenLabs' `alignment`, derived from the TTS job's word times:
a word's letters share its span, the spaces and punctuation between words share the gap."""

from __future__ import annotations

from soundstage.speech.character_times import WordSpan, character_times


def test_letters_share_their_word_and_the_rest_fills_the_gaps() -> None:
    text = ' Hi, you "there".'
    times = character_times(
        text, [WordSpan(100, 300), WordSpan(400, 700), WordSpan(800, 1000)], 1200
    )
    assert times.characters == list(text)
    spans = dict(enumerate(zip(times.starts, times.ends, strict=True)))
    assert spans[0] == (0.0, 0.1)  # the leading space: from 0 to the first word
    assert (spans[1], spans[2]) == ((0.1, 0.2), (0.2, 0.3))  # "Hi" shares 100-300 ms
    # ", " and the opening quote share the gaps after "Hi" and "you".
    assert (spans[3], spans[4]) == ((0.3, 0.35), (0.35, 0.4))
    assert (spans[8][0], spans[9][1]) == (0.7, 0.8)
    assert (spans[10][0], spans[14][1]) == (0.8, 1.0)  # "there"
    assert (spans[15][0], spans[16][1]) == (1.0, 1.2)  # '".' runs to the end of the audio


def test_times_never_go_backwards() -> None:
    # Overlapping or reversed word times (as an aligner may give) are clamped forward.
    times = character_times("a bb c", [WordSpan(500, 400), WordSpan(300, 900), WordSpan(0, 0)], 950)
    assert times.starts == sorted(times.starts)
    assert times.ends == sorted(times.ends)
    assert all(s <= e for s, e in zip(times.starts, times.ends, strict=True))


def test_a_word_count_that_does_not_match_spreads_the_text_evenly() -> None:
    times = character_times("one two", [WordSpan(0, 100)], 700)
    assert times.starts[0] == 0.0
    assert times.ends[-1] == 0.7
    assert times.ends[0] == 0.1
