"""The SSML subset a text-to-speech request may use: parsed safely (expat, no DTD, no entity
declarations, no external anything), checked against its bounds, and turned into a flat
document of text runs (each character knowing where it came from in the request's text) and
breaks.

Tags: `speak` (the root), `break` (time="700ms"|"1.5s", strength), `say-as` (interpret-as
characters|cardinal|ordinal|date|telephone, format), `phoneme` (alphabet ipa|x-sampa, ph),
`sub` (alias), `prosody` (rate, pitch), `emphasis` (level), `p` and `s` (paragraph and
sentence ends), `lang` (accepted: the voice reads the content in its own language) and
`mark` (accepted, ignored). Anything else (`voice`, `audio`, ...) is 422 `invalid_ssml`, as is
malformed XML, a bad attribute or a bound passed, with the line and column in the message."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field, replace
from typing import Final, Literal
from xml.parsers import expat

from soundstage.core.errors import InvalidField
from soundstage.engines.tts import text as pieces
from soundstage.engines.tts.frontend.script import Emphasis

# Bounds of a document: elements, nesting, one break, all breaks, and the text an attribute
# or a say-as/sub/phoneme element may hold.
MAX_ELEMENTS: Final = 500
MAX_DEPTH: Final = 12
MAX_BREAK_MS: Final = 10_000
MAX_TOTAL_BREAK_MS: Final = 30_000
MAX_ATTRIBUTE_CHARACTERS: Final = 200
MAX_ELEMENT_TEXT_CHARACTERS: Final = 100
# <prosody>: the relative rate and the pitch shift (semitones) one element may ask for.
MIN_PROSODY_RATE: Final = 0.5
MAX_PROSODY_RATE: Final = 2.0
MAX_PROSODY_SEMITONES: Final = 12.0

# The pause where a <p> or <s> starts or ends: what plain text leaves between paragraphs
# and sentences.
_STRUCTURE_PAUSES_MS: Final = {
    "p": pieces.PAUSE_AFTER_PARAGRAPH_MS,
    "s": pieces.PAUSE_AFTER_SENTENCE_MS,
}

SayAs = Literal["characters", "cardinal", "ordinal", "date", "telephone"]
Kind = Literal["text", "say-as", "phoneme", "sub"]

_BREAK_STRENGTHS: Final = {
    "none": 0,
    "x-weak": 100,
    "weak": 200,
    "medium": 400,
    "strong": 700,
    "x-strong": 1200,
}
_RATES: Final = {"x-slow": 0.5, "slow": 0.75, "medium": 1.0, "default": 1.0, "fast": 1.25}
_RATES_MORE: Final = {"x-fast": 1.5}
_PITCHES: Final = {"x-low": -6.0, "low": -3.0, "medium": 0.0, "default": 0.0, "high": 3.0}
_PITCHES_MORE: Final = {"x-high": 6.0}
_SAY_AS: Final[dict[str, SayAs]] = {
    "characters": "characters",
    "spell-out": "characters",
    "cardinal": "cardinal",
    "number": "cardinal",
    "ordinal": "ordinal",
    "date": "date",
    "telephone": "telephone",
}
_EMPHASIS: Final[dict[str, Emphasis | None]] = {
    "strong": "strong",
    "moderate": "moderate",
    "reduced": "reduced",
    "none": None,
}
_TIME: Final = re.compile(r"\s*(\d+(?:\.\d+)?|\.\d+)\s*(ms|s)\s*")
_PERCENT: Final = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)\s*%\s*")
_NUMBER: Final = re.compile(r"\s*(\d+(?:\.\d+)?)\s*")
_SEMITONES: Final = re.compile(r"\s*([+-]\d+(?:\.\d+)?)\s*st\s*")
_SPEAK: Final = re.compile(r"\s*<speak[\s>/]")

# Each tag's allowed attributes (a required one is checked by the tag's own handler).
_ATTRIBUTES: Final[dict[str, frozenset[str]]] = {
    "speak": frozenset({"version", "xmlns", "xml:lang", "xmlns:xsi", "xsi:schemaLocation"}),
    "break": frozenset({"time", "strength"}),
    "say-as": frozenset({"interpret-as", "format", "detail"}),
    "phoneme": frozenset({"alphabet", "ph"}),
    "sub": frozenset({"alias"}),
    "prosody": frozenset({"rate", "pitch"}),
    "emphasis": frozenset({"level"}),
    "p": frozenset({"xml:lang"}),
    "s": frozenset({"xml:lang"}),
    "lang": frozenset({"xml:lang"}),
    "mark": frozenset({"name"}),
}
# Elements whose content is one unit of text (no elements inside).
_LEAF_TEXT: Final = frozenset({"say-as", "phoneme", "sub"})


class InvalidSsml(InvalidField):
    """The text starts with `<speak>` but is not valid SSML of the supported subset
    (malformed XML, an unknown tag or attribute, a bad value, a bound passed); the message
    gives the line and column."""

    code = "invalid_ssml"


@dataclass(frozen=True)
class Voice:
    """How a run is read: <prosody> and <emphasis> in force."""

    rate: float = 1.0
    pitch: float = 0.0
    emphasis: Emphasis | None = None


@dataclass(frozen=True)
class Run:
    """Text of the document read one way. `starts[i]`/`ends[i]`: the characters of the
    request's text that text[i] comes from (an entity reference gives one character of
    several)."""

    text: str
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    voice: Voice = Voice()
    kind: Kind = "text"
    # say-as: how to read it; sub: the alias; phoneme: the pronunciation as given.
    interpret_as: SayAs | None = None
    format: str | None = None
    alias: str | None = None
    alphabet: str | None = None
    ph: str | None = None
    # Where the element that made it starts (its "<"), for a say-as, sub or phoneme run (and
    # a position for errors found later): an offset into the request's text.
    element_at: int = 0

    def raw_range(self, start: int, end: int) -> tuple[int, int]:
        """The request's characters that text[start:end] comes from (at `element_at` when
        it is empty)."""
        if start >= end:
            anchor = self.starts[start] if start < len(self.starts) else self.element_at
            if start >= len(self.starts) and self.ends:
                anchor = self.ends[-1]
            return anchor, anchor
        return self.starts[start], self.ends[end - 1]


@dataclass(frozen=True)
class Break:
    """Silence the document asks for: `explicit` from <break>, else from where a <p> or <s>
    starts or ends."""

    ms: int
    explicit: bool


Document = list[Run | Break]


def is_ssml(text: str) -> bool:
    """Whether `text` is to be read as SSML: it starts (after white space) with <speak>."""
    return _SPEAK.match(text) is not None


def position(text: str, offset: int) -> str:
    """'line L, column C' (both from 1) of a character offset into text."""
    line = text.count("\n", 0, offset) + 1
    column = offset - (text.rfind("\n", 0, offset) + 1) + 1
    return f"line {line}, column {column}"


def error(text: str, offset: int, problem: str) -> InvalidSsml:
    return InvalidSsml(f"Invalid SSML at {position(text, offset)}: {problem}", param="text")


def parse(text: str) -> Document:
    """The document `text` (which is_ssml) holds; InvalidSsml naming the position when it is
    not valid."""
    return _Parser(text).run()


@dataclass
class _Open:
    """An element being read."""

    tag: str
    at: int
    voice: Voice
    attributes: dict[str, str]
    # say-as, sub, phoneme: their text so far (characters and their origins).
    chars: list[str] = field(default_factory=list)
    starts: list[int] = field(default_factory=list)
    ends: list[int] = field(default_factory=list)


class _Parser:
    def __init__(self, text: str) -> None:
        self._text = text
        encoded = text.encode("utf-8")
        # The character offset of each byte offset (expat counts bytes).
        self._char_at = [0] * (len(encoded) + 1)
        byte = 0
        for index, character in enumerate(text):
            width = len(character.encode("utf-8"))
            for extra in range(width):
                self._char_at[byte + extra] = index
            byte += width
        self._char_at[byte] = len(text)
        self._encoded = encoded
        self._parser = expat.ParserCreate()
        self._stack: list[_Open] = []
        self._document: Document = []
        self._elements = 0
        self._break_ms = 0
        self._root_seen = False

    def run(self) -> Document:
        parser = self._parser
        parser.SetParamEntityParsing(expat.XML_PARAM_ENTITY_PARSING_NEVER)
        parser.StartDoctypeDeclHandler = self._refuse_doctype
        parser.EntityDeclHandler = self._refuse_entity
        parser.ProcessingInstructionHandler = self._refuse_instruction
        parser.StartElementHandler = self._start
        parser.EndElementHandler = self._end
        parser.CharacterDataHandler = self._characters
        try:
            parser.Parse(self._encoded, True)
        except expat.ExpatError as exc:
            offset = self._char_at[min(parser.ErrorByteIndex, len(self._encoded))]
            raise error(self._text, offset, expat.ErrorString(exc.code)) from None
        return _merged(self._document)

    def _here(self) -> int:
        return self._char_at[min(max(self._parser.CurrentByteIndex, 0), len(self._encoded))]

    def _fail(self, problem: str) -> InvalidSsml:
        return error(self._text, self._here(), problem)

    def _refuse_doctype(self, *args: object) -> None:
        raise self._fail("a document type declaration is not allowed")

    def _refuse_entity(self, *args: object) -> None:
        raise self._fail("entity declarations are not allowed")

    def _refuse_instruction(self, *args: object) -> None:
        raise self._fail("processing instructions are not allowed")

    def _start(self, tag: str, attributes: dict[str, str]) -> None:
        self._elements += 1
        if self._elements > MAX_ELEMENTS:
            raise self._fail(f"more than {MAX_ELEMENTS} elements")
        if len(self._stack) >= MAX_DEPTH:
            raise self._fail(f"elements nested deeper than {MAX_DEPTH}")
        if tag not in _ATTRIBUTES:
            raise self._fail(f"<{tag}> is not supported")
        if tag == "speak" and (self._stack or self._root_seen):
            raise self._fail("<speak> must be the root element, once")
        self._root_seen = True
        if self._stack and self._stack[-1].tag in _LEAF_TEXT | {"break", "mark"}:
            raise self._fail(f"<{self._stack[-1].tag}> holds text only, not <{tag}>")
        for name, value in attributes.items():
            if name not in _ATTRIBUTES[tag]:
                raise self._fail(f"<{tag}> has no attribute {name!r}")
            if len(value) > MAX_ATTRIBUTE_CHARACTERS:
                raise self._fail(f"{name} is longer than {MAX_ATTRIBUTE_CHARACTERS} characters")
        voice = self._stack[-1].voice if self._stack else Voice()
        if tag == "prosody":
            voice = self._prosody(voice, attributes)
        elif tag == "emphasis":
            level = attributes.get("level", "moderate")
            if level not in _EMPHASIS:
                raise self._fail(f"emphasis level must be one of {', '.join(_EMPHASIS)}")
            voice = replace(voice, emphasis=_EMPHASIS[level])
        elif tag == "break":
            self._break(attributes)
        else:
            self._check_leaf(tag, attributes)
        if tag in ("p", "s"):
            self._document.append(Break(_STRUCTURE_PAUSES_MS[tag], explicit=False))
        self._stack.append(_Open(tag, self._here(), voice, attributes))

    def _check_leaf(self, tag: str, attributes: dict[str, str]) -> None:
        required = {"say-as": "interpret-as", "phoneme": "ph", "sub": "alias", "lang": "xml:lang"}
        name = required.get(tag)
        if name is not None and not attributes.get(name, "").strip():
            raise self._fail(f"<{tag}> needs a non-empty {name}")
        if tag == "say-as" and attributes["interpret-as"] not in _SAY_AS:
            raise self._fail(
                "interpret-as must be one of characters, cardinal, ordinal, date, telephone"
            )
        if tag == "phoneme" and attributes.get("alphabet", "ipa") not in ("ipa", "x-sampa"):
            raise self._fail('alphabet must be "ipa" or "x-sampa"')

    def _break(self, attributes: dict[str, str]) -> None:
        if "time" in attributes:
            match = _TIME.fullmatch(attributes["time"])
            if match is None:
                raise self._fail('break time must look like "700ms" or "1.5s"')
            ms = float(match[1]) * (1 if match[2] == "ms" else 1000)
            if ms > MAX_BREAK_MS:
                raise self._fail(f"a break lasts at most {MAX_BREAK_MS} ms")
            duration = round(ms)
        else:
            strength = attributes.get("strength", "medium")
            if strength not in _BREAK_STRENGTHS:
                raise self._fail(f"break strength must be one of {', '.join(_BREAK_STRENGTHS)}")
            duration = _BREAK_STRENGTHS[strength]
        self._break_ms += duration
        if self._break_ms > MAX_TOTAL_BREAK_MS:
            raise self._fail(f"the breaks last more than {MAX_TOTAL_BREAK_MS} ms in all")
        self._document.append(Break(duration, explicit=True))

    def _prosody(self, voice: Voice, attributes: dict[str, str]) -> Voice:
        rate, pitch = voice.rate, voice.pitch
        if "rate" in attributes:
            rate *= self._rate(attributes["rate"])
        if "pitch" in attributes:
            pitch += self._pitch(attributes["pitch"])
        # Nested elements multiply (add) up to the bounds of one.
        rate = min(max(rate, MIN_PROSODY_RATE), MAX_PROSODY_RATE)
        pitch = min(max(pitch, -MAX_PROSODY_SEMITONES), MAX_PROSODY_SEMITONES)
        return replace(voice, rate=rate, pitch=pitch)

    def _rate(self, value: str) -> float:
        named = {**_RATES, **_RATES_MORE}
        if value.strip() in named:
            return named[value.strip()]
        percent, number = _PERCENT.fullmatch(value), _NUMBER.fullmatch(value)
        rate = float(percent[1]) / 100 if percent else float(number[1]) if number else math.nan
        if not MIN_PROSODY_RATE <= rate <= MAX_PROSODY_RATE:
            raise self._fail(
                "prosody rate must be x-slow, slow, medium, fast, x-fast, 50% to 200% or 0.5 to 2.0"
            )
        return rate

    def _pitch(self, value: str) -> float:
        named = {**_PITCHES, **_PITCHES_MORE}
        if value.strip() in named:
            return named[value.strip()]
        semitones, percent = _SEMITONES.fullmatch(value), _PERCENT.fullmatch(value)
        shift = math.nan
        if semitones is not None:
            shift = float(semitones[1])
        elif percent is not None and -50 <= float(percent[1]) <= 100:
            shift = 12 * math.log2(1 + float(percent[1]) / 100)
        if not -MAX_PROSODY_SEMITONES <= shift <= MAX_PROSODY_SEMITONES:
            raise self._fail(
                "prosody pitch must be x-low, low, medium, high, x-high, -12st to +12st or "
                "-50% to +100%"
            )
        return shift

    def _characters(self, data: str) -> None:
        at = self._here()
        text = self._text
        if text[at] != "&" and text.startswith(data, at):
            starts = list(range(at, at + len(data)))
            ends = [start + 1 for start in starts]
        else:
            # An entity or character reference, or a line end expat folded ("\r\n").
            end = text.index(";", at) + 1 if text[at] == "&" else at + 1
            if text.startswith("\r\n", at):
                end = at + 2
            starts, ends = [at] * len(data), [end] * len(data)
        top = self._stack[-1] if self._stack else None
        if top is None:
            return
        if top.tag in ("break", "mark"):
            if data.strip():
                raise self._fail(f"<{top.tag}> holds nothing")
            return
        if top.tag in _LEAF_TEXT:
            top.chars.extend(data)
            top.starts.extend(starts)
            top.ends.extend(ends)
            if len(top.chars) > MAX_ELEMENT_TEXT_CHARACTERS:
                raise self._fail(
                    f"<{top.tag}> holds more than {MAX_ELEMENT_TEXT_CHARACTERS} characters"
                )
            return
        self._document.append(Run(data, tuple(starts), tuple(ends), top.voice))

    def _end(self, tag: str) -> None:
        element = self._stack.pop()
        if tag in ("p", "s"):
            self._document.append(Break(_STRUCTURE_PAUSES_MS[tag], explicit=False))
        elif tag in _LEAF_TEXT:
            attributes = element.attributes
            self._document.append(
                Run(
                    "".join(element.chars),
                    tuple(element.starts),
                    tuple(element.ends),
                    element.voice,
                    kind=tag,  # type: ignore[arg-type]
                    interpret_as=_SAY_AS.get(attributes.get("interpret-as", "")),
                    format=attributes.get("format"),
                    alias=attributes.get("alias"),
                    alphabet=attributes.get("alphabet", "ipa") if tag == "phoneme" else None,
                    ph=attributes.get("ph"),
                    element_at=element.at,
                )
            )


def _merged(document: Document) -> Document:
    """Adjacent plain runs read the same way joined into one (expat cuts text at every
    reference and line end)."""
    merged: Document = []
    for item in document:
        last = merged[-1] if merged else None
        if (
            isinstance(item, Run)
            and isinstance(last, Run)
            and item.kind == last.kind == "text"
            and item.voice == last.voice
        ):
            merged[-1] = replace(
                last,
                text=last.text + item.text,
                starts=last.starts + item.starts,
                ends=last.ends + item.ends,
            )
        else:
            merged.append(item)
    return merged


def text_content(document: Document) -> str:
    """The document's text as written (tags left out, references decoded), white space as
    it stands."""
    return "".join(item.text for item in document if isinstance(item, Run))
