"""The front end's one entry: the request's text (plain or SSML) to the script an engine
reads, the characters it is billed, and the words as written that timestamps are given for.

Order: SSML (when the text starts with <speak>), then pronunciation-dictionary rules on the
plain text runs (never inside say-as, phoneme or sub), then normalization of what is left.
Every span keeps the offsets of the request's own characters (markup included).

`apply_text_normalization`: "on" expands numbers, money, dates... (`normalize.expand`);
"off" reads every whitespace-separated token as written (the engine's own reading of "$250"
then decides); "auto" is "on": one reading for every voice whatever its engine does."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Final, Literal

from soundstage.engines.tts.frontend import normalize, ssml
from soundstage.engines.tts.frontend.script import Pause, Rule, Script, Span
from soundstage.engines.tts.phonemes import check_ipa, xsampa_to_ipa

Normalization = Literal["auto", "on", "off"]

_TOKEN: Final = re.compile(r"\S+")
_WHITE: Final = re.compile(r"\s+")


def script(
    text: str,
    language: str,
    *,
    normalization: Normalization,
    rules: Sequence[Rule],
    markup: bool = True,
) -> Script:
    """What to read for `text` in `language` (BCP-47). InvalidSsml (422, naming the
    position) when the text is SSML and invalid; without `markup` the text is plain
    whatever it starts with (realtime sessions)."""
    if not markup or not ssml.is_ssml(text):
        plain = ssml.Run(text, tuple(range(len(text))), tuple(range(1, len(text) + 1)))
        return list[Span | Pause](_read_run(plain, language, normalization, _Matcher(rules)))
    document = ssml.parse(text)
    matcher = _Matcher(rules)
    out: Script = []
    pending: list[ssml.Break] = []
    for item in document:
        if isinstance(item, ssml.Break):
            pending.append(item)
            continue
        spans = _read(text, item, language, normalization, matcher)
        if not spans:
            continue
        if pending and out:
            out.append(Pause(_pause_ms(pending)))
        elif leading := [pause for pause in pending if pause.explicit]:
            out.append(Pause(_pause_ms(leading)))
        pending = []
        out.extend(spans)
    if not any(isinstance(item, Span) and (item.spoken or item.phonemes) for item in out):
        raise ssml.error(text, len(text), "there is nothing to say")
    if trailing := [pause for pause in pending if pause.explicit]:
        out.append(Pause(_pause_ms(trailing)))
    return out


def _pause_ms(breaks: list[ssml.Break]) -> int:
    """Breaks in a row: the explicit ones add up and replace what the structure implies;
    without any, the longest structural pause."""
    explicit = [item.ms for item in breaks if item.explicit]
    return sum(explicit) if explicit else max(item.ms for item in breaks)


def billed_characters(text: str, rules: Sequence[Rule] = ()) -> int:
    """The characters a text is charged: those it is spoken as (spoken_characters), never
    fewer than those it is written with (written_characters)."""
    return max(written_characters(text), spoken_characters(text, rules))


def written_characters(text: str) -> int:
    """The characters of the text as written: plain text, every character as sent; SSML, its
    text content (tags and comments left out, references decoded, alias and ph attributes
    not counted), each run of white space counted as one character and none at its ends."""
    if not ssml.is_ssml(text):
        return len(text)
    content = ssml.text_content(ssml.parse(text))
    return len(_WHITE.sub(" ", content).strip())


def spoken_characters(text: str, rules: Sequence[Rule] = ()) -> int:
    """The characters of the text as it is spoken: as written_characters counts them, with
    every alias in place of what it stands for (an SSML <sub>'s alias for its content, a
    dictionary alias rule's alias for the words it matches). The service's own reading
    (numbers, dates, abbreviations, say-as) is not counted: it is priced as written."""
    matcher = _Matcher(rules)
    if not ssml.is_ssml(text):
        return len(matcher.substituted(text))
    said = [_said(item, matcher) for item in ssml.parse(text) if isinstance(item, ssml.Run)]
    return len(_WHITE.sub(" ", "".join(said)).strip())


def _said(run: ssml.Run, matcher: _Matcher) -> str:
    if run.kind == "sub":
        return run.alias or ""
    if run.kind == "text":
        return matcher.substituted(run.text)
    return run.text


@dataclass(frozen=True)
class WrittenWord:
    """A whitespace-separated word of the text as written (SSML: of its text content), and
    the request's characters it comes from."""

    word: str
    start: int
    end: int


def written_words(text: str) -> list[WrittenWord]:
    """The words timestamps are given for: plain text's whitespace-separated words; SSML's
    text content's, a break, <p> or <s> also ending a word."""
    if not ssml.is_ssml(text):
        return [WrittenWord(m.group(), m.start(), m.end()) for m in _TOKEN.finditer(text)]
    words: list[WrittenWord] = []
    for chars in _word_runs(ssml.parse(text)):
        content = "".join(character for character, _, _ in chars)
        for match in _TOKEN.finditer(content):
            first, last = chars[match.start()], chars[match.end() - 1]
            words.append(WrittenWord(match.group(), first[1], last[2]))
    return words


def _word_runs(document: ssml.Document) -> list[list[tuple[str, int, int]]]:
    runs: list[list[tuple[str, int, int]]] = [[]]
    for item in document:
        if isinstance(item, ssml.Break):
            runs.append([])
        else:
            runs[-1].extend(zip(item.text, item.starts, item.ends, strict=True))
    return runs


def spoken_text(spans: Sequence[Span]) -> str:
    """The words the spans say, one space between spans."""
    return " ".join(span.spoken for span in spans if span.spoken)


def plain_spoken_text(text: str, language: str) -> str:
    """Plain text (never SSML, no dictionaries) normalized as an engine reads it: what
    realtime sessions and dubbing's lines give their engines ("" when nothing is said)."""
    spans = script(text, language, normalization="auto", rules=[], markup=False)
    return spoken_text([item for item in spans if isinstance(item, Span)])


def _say_as(text: str, interpret_as: ssml.SayAs, language: str, format: str | None) -> str:
    """The words <say-as> reads (normalize.say_as); ValueError when the text does not fit."""
    return normalize.say_as(text, interpret_as, language, format=format)


def _ipa(alphabet: str, ph: str) -> str:
    """The pronunciation as IPA; ValueError naming the position of what is not a phoneme."""
    return xsampa_to_ipa(ph.strip()) if alphabet == "x-sampa" else _checked(ph.strip())


def _checked(ipa: str) -> str:
    check_ipa(ipa)
    return ipa


class _Matcher:
    """Dictionary rules as one regular expression: whole words, the longest grapheme first,
    each case-sensitive or not as declared."""

    def __init__(self, rules: Sequence[Rule]) -> None:
        ordered = sorted(
            (rule for rule in rules if rule.grapheme.strip()),
            key=lambda rule: len(rule.grapheme),
            reverse=True,
        )
        self._rules = ordered
        alternatives = [
            re.escape(rule.grapheme) if rule.case_sensitive else f"(?i:{re.escape(rule.grapheme)})"
            for rule in ordered
        ]
        self._pattern = (
            re.compile(r"(?<!\w)(?:" + "|".join(alternatives) + r")(?!\w)")
            if alternatives
            else None
        )

    def split(self, text: str) -> list[tuple[int, int, Rule | None]]:
        """text cut into (start, end, the rule reading it or None for text left as is)."""
        if self._pattern is None:
            return [(0, len(text), None)]
        parts: list[tuple[int, int, Rule | None]] = []
        cursor = 0
        for match in self._pattern.finditer(text):
            if match.start() > cursor:
                parts.append((cursor, match.start(), None))
            parts.append((match.start(), match.end(), self._rule_for(match.group())))
            cursor = match.end()
        if cursor < len(text):
            parts.append((cursor, len(text), None))
        return parts

    def substituted(self, text: str) -> str:
        """`text` with each alias rule's alias in place of the words it matches."""
        return "".join(
            rule.alias if rule is not None and rule.alias is not None else text[start:end]
            for start, end, rule in self.split(text)
        )

    def _rule_for(self, found: str) -> Rule:
        for rule in self._rules:
            if rule.grapheme == found or (
                not rule.case_sensitive and rule.grapheme.casefold() == found.casefold()
            ):
                return rule
        raise AssertionError(f"no rule matched {found!r}")  # pragma: no cover


def _expand(text: str, language: str, normalization: Normalization) -> list[Span]:
    if normalization == "off":
        return [Span(m.start(), m.end(), m.group()) for m in _TOKEN.finditer(text)]
    return normalize.expand(text, language)


def _read_run(
    run: ssml.Run, language: str, normalization: Normalization, matcher: _Matcher
) -> list[Span]:
    """A plain run: dictionary rules, then normalization of the rest."""
    voice = run.voice
    spans: list[Span] = []
    for start, end, rule in matcher.split(run.text):
        if rule is None:
            for span in _expand(run.text[start:end], language, normalization):
                raw = run.raw_range(start + span.start, start + span.end)
                spans.append(_voiced(Span(raw[0], raw[1], span.spoken, span.phonemes), voice))
            continue
        raw = run.raw_range(start, end)
        if rule.phoneme is not None:
            spans.append(_voiced(Span(*raw, run.text[start:end], phonemes=rule.phoneme), voice))
        else:
            spoken = _words(rule.alias or "", language, normalization)
            spans.append(_voiced(Span(*raw, spoken), voice))
    return spans


def _words(text: str, language: str, normalization: Normalization) -> str:
    return " ".join(span.spoken for span in _expand(text, language, normalization) if span.spoken)


def _voiced(span: Span, voice: ssml.Voice) -> Span:
    if voice == ssml.Voice():
        return span
    return Span(
        span.start,
        span.end,
        span.spoken,
        span.phonemes,
        rate=voice.rate,
        pitch=voice.pitch,
        emphasis=voice.emphasis,
    )


def _read(
    text: str, run: ssml.Run, language: str, normalization: Normalization, matcher: _Matcher
) -> list[Span]:
    """One run of an SSML document."""
    if run.kind == "text":
        return _read_run(run, language, normalization, matcher)
    start, end = run.raw_range(0, len(run.text))
    if not run.text.strip() and run.kind != "sub":
        raise ssml.error(text, run.element_at, f"<{run.kind}> holds no text")
    if run.kind == "sub":
        if not run.text:
            start = end = run.element_at
        spoken = _words(run.alias or "", language, normalization)
        return [_voiced(Span(start, end, spoken), run.voice)]
    if run.kind == "phoneme":
        try:
            ipa = _ipa(run.alphabet or "ipa", run.ph or "")
        except ValueError as exc:
            raise ssml.error(text, run.element_at, f"ph: {exc}") from None
        written = " ".join(run.text.split())
        return [_voiced(Span(start, end, written, phonemes=ipa), run.voice)]
    assert run.interpret_as is not None
    try:
        said = _say_as(run.text.strip(), run.interpret_as, language, run.format)
    except ValueError as exc:
        raise ssml.error(text, run.element_at, f"say-as {run.interpret_as}: {exc}") from None
    # Letters spelled out are read as they are; numbers, dates... normalized.
    spoken = said if run.interpret_as == "characters" else _words(said, language, normalization)
    return [_voiced(Span(start, end, spoken), run.voice)]
