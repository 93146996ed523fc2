"""The text front end's SSML reading, dictionary rules, billing and written words, on text
alone (the audio is tested through the API in tests/speech/test_tts_ssml.py)."""

from __future__ import annotations

import pytest

from soundstage.engines.tts.frontend import reading, ssml
from soundstage.engines.tts.frontend.script import Pause, Rule, Script, Span

# IPA, escaped (ruff flags its look-alike letters).
TOMATO = "t\u0259\u02c8m\u0251\u02d0to\u028a"
NGINX = "\u02c8\u025bnd\u0292\u026an\u02c8\u025bks"


def read(text: str, rules: list[Rule] | None = None, normalization: str = "auto") -> Script:
    return reading.script(
        text,
        "en-US",
        normalization=normalization,  # type: ignore[arg-type]
        rules=rules or [],
    )


def spans(text: str, rules: list[Rule] | None = None) -> list[Span]:
    return [item for item in read(text, rules) if isinstance(item, Span)]


def test_spans_keep_the_offsets_of_the_text_as_sent() -> None:
    text = '<speak>Fish &amp; chips <sub alias="World Wide Web">WWW</sub>\r\nend</speak>'
    found = spans(text)
    assert [text[span.start : span.end] for span in found] == [
        "Fish",
        "&amp;",
        "chips",
        "WWW",
        "end",
    ]
    assert [span.spoken for span in found] == ["Fish", "and", "chips", "World Wide Web", "end"]


def test_breaks_and_structure_become_pauses() -> None:
    text = (
        '<speak><break time="250ms"/>One<break time="1.5s"/><break strength="weak"/>'
        "two<p>Three</p><s>four</s></speak>"
    )

    def at(word: str) -> Span:
        return Span(text.index(word), text.index(word) + len(word), word)

    assert read(text) == [
        Pause(250),
        at("One"),
        Pause(1500 + 200),
        at("two"),
        Pause(600),
        at("Three"),
        Pause(600),
        at("four"),
    ]


def test_prosody_and_emphasis_are_carried_by_their_spans() -> None:
    found = spans(
        '<speak><prosody rate="80%" pitch="+2st">a <prosody rate="slow" pitch="low">b'
        '</prosody></prosody> <emphasis level="strong">c</emphasis> d</speak>'
    )
    assert [(s.spoken, s.rate, s.pitch, s.emphasis) for s in found] == [
        ("a", 0.8, 2.0, None),
        ("b", 0.8 * 0.75, -1.0, None),
        ("c", 1.0, 0.0, "strong"),
        ("d", 1.0, 0.0, None),
    ]


def test_phoneme_keeps_the_written_words_and_the_pronunciation() -> None:
    (span,) = spans(f'<speak><phoneme alphabet="ipa" ph="{TOMATO}">tomato</phoneme></speak>')
    assert (span.spoken, span.phonemes) == ("tomato", TOMATO)


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ("<speak>Hello <b>there</b></speak>", "line 1, column 14"),
        ("<speak>\n  Hello <break time='2 minutes'/></speak>", "line 2, column 9"),
        ('<speak>Hi<break time="10001ms"/></speak>', "line 1, column 10"),
        ("<speak>\n\n<s>unclosed</speak>", "line 3, column 14"),
        ('<speak><say-as interpret-as="shout">x</say-as></speak>', "line 1, column 8"),
        ('<speak><phoneme alphabet="arpabet" ph="k">x</phoneme></speak>', "line 1, column 8"),
        ('<speak><prosody rate="300%">x</prosody></speak>', "line 1, column 8"),
        ('<speak><prosody pitch="+13st">x</prosody></speak>', "line 1, column 8"),
        ('<speak><emphasis level="loud">x</emphasis></speak>', "line 1, column 8"),
        ('<speak><sub alias="">x</sub></speak>', "line 1, column 8"),
        ("<speak><sub alias='a'>x<s>y</s></sub></speak>", "line 1, column 24"),
        ('<speak><voice name="x">y</voice></speak>', "line 1, column 8"),
        ('<speak><break time="1s" bogus="1"/>y</speak>', "line 1, column 8"),
        # Only the five XML entities (and character references): no DTD can come first.
        ("<speak>a &lol; b</speak>", "line 1, column 10"),
        ("<speak><break/></speak>", "line 1, column 24"),
    ],
)
def test_invalid_ssml_names_the_position(text: str, where: str) -> None:
    with pytest.raises(ssml.InvalidSsml) as refused:
        read(text)
    assert refused.value.param == "text"
    assert refused.value.code == "invalid_ssml"
    assert where in refused.value.message, refused.value.message


def test_bounds_of_a_document() -> None:
    inside = (
        "<speak>"
        + "<prosody>" * (ssml.MAX_DEPTH - 1)
        + "x"
        + "</prosody>" * (ssml.MAX_DEPTH - 1)
        + '<break time="10s"/>' * 3
        + "<mark name='m'/>" * (ssml.MAX_ELEMENTS - ssml.MAX_DEPTH - 3)
        + "y</speak>"
    )
    assert [item for item in read(inside) if isinstance(item, Pause)] == [Pause(30_000)]
    too_deep = inside.replace("<prosody>", "<prosody><prosody>", 1).replace(
        "</prosody>", "</prosody></prosody>", 1
    )
    too_many = inside.replace("y</speak>", "<mark name='m'/>y</speak>")
    too_long = inside.replace('"10s"', '"10.001s"', 1)
    too_much = inside.replace("y</speak>", "<break time='1ms'/>y</speak>").replace(
        "<mark name='m'/>", "", 1
    )
    for text, problem in [
        (too_deep, "nested deeper than 12"),
        (too_many, "more than 500 elements"),
        (too_long, "a break lasts at most 10000 ms"),
        (too_much, "more than 30000 ms in all"),
    ]:
        with pytest.raises(ssml.InvalidSsml, match=problem):
            read(text)


def test_dictionary_rules_whole_words_longest_first_and_as_declared() -> None:
    rules = [
        Rule("New York", alias="the big apple"),
        Rule("New", alias="brand new"),
        Rule("sql", alias="sequel", case_sensitive=False),
        Rule("Nginx", phoneme=NGINX),
    ]
    found = spans("New York runs SQL, nginx, Nginx and Newer things.", rules)
    assert [(s.spoken, s.phonemes) for s in found] == [
        ("the big apple", None),
        ("runs", None),
        ("sequel", None),
        ("", None),
        ("nginx,", None),
        ("Nginx", NGINX),
        ("and", None),
        ("Newer", None),
        ("things.", None),
    ]


def test_rules_never_apply_inside_say_as_phoneme_or_sub() -> None:
    rules = [Rule("cat", alias="kitty")]
    text = (
        '<speak>cat <say-as interpret-as="characters">cat</say-as> '
        '<sub alias="dog">cat</sub> <phoneme ph="kæt">cat</phoneme></speak>'
    )
    assert [s.spoken for s in spans(text, rules)] == ["kitty", "C A T", "dog", "cat"]


def test_billed_characters() -> None:
    plain = "  Plain text:   every character, as sent.\n"
    assert reading.billed_characters(plain) == len(plain)
    marked = (
        '<speak>\n  <p>Hello <break time="300ms"/>world &amp; <sub alias="World Wide Web">'
        "WWW</sub>.</p>\n</speak>"
    )
    assert reading.written_characters(marked) == len("Hello world & WWW.")
    # Billed as spoken: the <sub>'s alias in place of its text.
    assert reading.billed_characters(marked) == len("Hello world & World Wide Web.")
    # Never fewer than written: an alias shorter than its text.
    shorter = '<speak>The <sub alias="W3C">World Wide Web Consortium</sub> met.</speak>'
    assert reading.billed_characters(shorter) == len("The World Wide Web Consortium met.")


def test_billed_characters_count_dictionary_aliases_as_spoken() -> None:
    rules = [Rule("W3C", alias="World Wide Web Consortium"), Rule("tomato", phoneme="tomato")]
    text = "The W3C grows a tomato; W3Cx is not a match."
    spoken = "The World Wide Web Consortium grows a tomato; W3Cx is not a match."
    assert reading.billed_characters(text, rules) == len(spoken)
    # In SSML too, outside <sub>, <say-as> and <phoneme> (where rules do not apply).
    marked = '<speak>The W3C and <say-as interpret-as="characters">W3C</say-as>.</speak>'
    assert reading.billed_characters(marked, rules) == len("The World Wide Web Consortium and W3C.")
    # Case as each rule declares.
    loose = [Rule("w3c", alias="World Wide Web Consortium", case_sensitive=False)]
    assert reading.billed_characters("A W3C.", loose) == len("A World Wide Web Consortium.")


def test_written_words_ignore_the_markup() -> None:
    text = '<speak>Visit the <sub alias="World Wide Web">WWW</sub> at 3&amp;4.</speak>'
    assert [w.word for w in reading.written_words(text)] == ["Visit", "the", "WWW", "at", "3&4."]
    plain = "I paid $250 for it."
    assert [w.word for w in reading.written_words(plain)] == plain.split()


def test_plain_text_starting_with_speak_in_a_session_is_not_markup() -> None:
    script = reading.script("<speak>x</speak>", "en", normalization="off", rules=[], markup=False)
    assert [item.spoken for item in script if isinstance(item, Span)] == ["<speak>x</speak>"]
