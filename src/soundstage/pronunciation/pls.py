"""W3C Pronunciation Lexicon Specification 1.0 files: read (defusedxml: no DTD, no entity,
no external reference) and written.

What is read: `<lexicon alphabet="ipa|x-sampa" xml:lang="…">` with `<lexeme>`s, each one or
more `<grapheme>` then its pronunciations, `<phoneme>` (its own `alphabet` may override the
lexicon's) or `<alias>`; the one marked `prefer="true"`, else the first, is the rule of every
grapheme of the lexeme. `<example>`, `<meta>` and `<metadata>` are skipped. PLS has no case
sensitivity: a lexeme is case-sensitive unless it carries this service's
`ss:case-sensitive="false"` (namespace `CASE_NS`), which the files written here use so that a
download read back gives the same rules. A problem is reported with its line and column.
"""

from __future__ import annotations

import io
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast
from xml.sax import SAXParseException
from xml.sax.handler import ContentHandler, ErrorHandler, feature_namespaces
from xml.sax.saxutils import escape, quoteattr
from xml.sax.xmlreader import AttributesNSImpl, Locator

from defusedxml import DefusedXmlException
from defusedxml.expatreader import DefusedExpatParser

from soundstage.pronunciation.rules import (
    MAX_ALIAS_CHARS,
    MAX_GRAPHEME_CHARS,
    MAX_RULES,
    Alphabet,
    StoredRule,
    phoneme_in_ipa,
)

PLS_NS = "http://www.w3.org/2005/01/pronunciation-lexicon"
XML_NS = "http://www.w3.org/XML/1998/namespace"
CASE_NS = "https://soundstage.dev/ns/pls"
# A PLS file's size limit (docs/text-to-speech.md, "Pronunciation dictionaries").
MAX_PLS_BYTES = 1_000_000
MAX_LANGUAGE_CHARS = 35
_LANGUAGE_TAG = re.compile(r"[A-Za-z0-9-]+", re.ASCII)
UNDETERMINED = "und"  # BCP 47: PLS requires xml:lang, and a dictionary may have no language

_ALPHABETS: dict[str, Alphabet] = {"ipa": "ipa", "x-sampa": "x-sampa"}
_SKIPPED = frozenset({"meta", "metadata", "example"})


class PlsError(ValueError):
    """What is wrong with the file, and where (1-based line and column)."""

    def __init__(self, problem: str, line: int, column: int) -> None:
        super().__init__(f"line {line}, column {column}: {problem}")
        self.problem = problem
        self.line = line
        self.column = column


class PlsTooManyRules(PlsError):
    """The file holds more rules than a version may."""


@dataclass(frozen=True)
class Lexicon:
    language: str | None
    rules: list[StoredRule]


@dataclass
class _Pronunciation:
    kind: str  # "phoneme" | "alias"
    text: str
    alphabet: Alphabet
    prefer: bool
    where: tuple[int, int]


@dataclass
class _Lexeme:
    where: tuple[int, int]
    case_sensitive: bool
    graphemes: list[tuple[str, tuple[int, int]]] = field(default_factory=list)
    pronunciations: list[_Pronunciation] = field(default_factory=list)


class _Reader(ContentHandler):
    def __init__(self) -> None:
        super().__init__()
        self.locator: Locator | None = None
        self.depth = 0
        self.skip_depth: int | None = None  # inside a skipped element
        self.alphabet: Alphabet = "ipa"
        self.language: str | None = None
        self.lexeme: _Lexeme | None = None
        self.text: list[str] | None = None  # the text of the open grapheme/phoneme/alias
        self.open: tuple[str, dict[str, str], tuple[int, int]] | None = None
        self.rules: list[StoredRule] = []
        self.seen: dict[str, int] = {}  # grapheme -> line of its lexeme
        self.in_prolog = True  # until the root element opens

    def setDocumentLocator(self, locator: Locator) -> None:  # noqa: N802 (SAX's name)
        self.locator = locator

    def position(self) -> tuple[int, int]:
        if self.locator is None:
            return (1, 1)
        return (self.locator.getLineNumber() or 1, (self.locator.getColumnNumber() or 0) + 1)

    def fail(self, problem: str, where: tuple[int, int] | None = None) -> PlsError:
        line, column = where or self.position()
        return PlsError(problem, line, column)

    def startElementNS(  # noqa: N802 (SAX's name)
        self, name: tuple[str | None, str], qname: str | None, attrs: AttributesNSImpl
    ) -> None:
        uri, local = name
        self.in_prolog = False
        self.depth += 1
        if self.skip_depth is not None:
            return
        where = self.position()
        if uri not in (PLS_NS, None):
            raise self.fail(f"unexpected element <{local}> in namespace {uri}")
        values = {
            (key[0] or "") + "|" + key[1]: value
            for key, value in cast(dict[tuple[str | None, str], str], dict(attrs.items())).items()
        }
        if self.depth == 1:
            self._lexicon(local, values)
        elif self.depth == 2:
            if local in _SKIPPED:
                self.skip_depth = self.depth
            elif local == "lexeme":
                sensitive = values.get(f"{CASE_NS}|case-sensitive", "true")
                if sensitive not in ("true", "false"):
                    raise self.fail('ss:case-sensitive must be "true" or "false"')
                self.lexeme = _Lexeme(where, case_sensitive=sensitive == "true")
            else:
                raise self.fail(f"unexpected element <{local}> in <lexicon>")
        elif self.depth == 3 and self.lexeme is not None:
            if local in _SKIPPED:
                self.skip_depth = self.depth
            elif local in ("grapheme", "phoneme", "alias"):
                if local == "grapheme" and self.lexeme.pronunciations:
                    raise self.fail("a <grapheme> must come before the lexeme's pronunciations")
                self.open = (local, values, where)
                self.text = []
            else:
                raise self.fail(f"unexpected element <{local}> in <lexeme>")
        else:
            raise self.fail(f"unexpected element <{local}> inside <{self._parent()}>")

    def _parent(self) -> str:
        return self.open[0] if self.open is not None else "lexeme"

    def _lexicon(self, local: str, values: dict[str, str]) -> None:
        if local != "lexicon":
            raise self.fail(f"the root element must be <lexicon>, not <{local}>")
        version = values.get("|version", "1.0")
        if version != "1.0":
            raise self.fail(f'version "{version}" is not PLS 1.0')
        alphabet = values.get("|alphabet")
        if alphabet is None:
            raise self.fail('<lexicon> needs an alphabet: "ipa" or "x-sampa"')
        self.alphabet = self._alphabet(alphabet)
        language = values.get(f"{XML_NS}|lang")
        if language is not None:
            language = language.strip()
            if not _LANGUAGE_TAG.fullmatch(language) or len(language) > MAX_LANGUAGE_CHARS:
                raise self.fail(
                    f"xml:lang must be a language tag (letters, digits and -) of 1 to "
                    f"{MAX_LANGUAGE_CHARS} characters"
                )
            # "und" (undetermined) is what `write` puts for a dictionary of no language.
            self.language = None if language.lower() == UNDETERMINED else language

    def _alphabet(self, value: str) -> Alphabet:
        alphabet = _ALPHABETS.get(value.strip().lower())
        if alphabet is None:
            raise self.fail(f'alphabet "{value}" is not supported: use "ipa" or "x-sampa"')
        return alphabet

    def characters(self, content: str) -> None:
        if self.text is not None and self.skip_depth is None:
            self.text.append(content)

    def endElementNS(  # noqa: N802 (SAX's name)
        self, name: tuple[str | None, str], qname: str | None
    ) -> None:
        depth, self.depth = self.depth, self.depth - 1
        if self.skip_depth is not None:
            if depth == self.skip_depth:
                self.skip_depth = None
            return
        if depth == 3 and self.open is not None and self.lexeme is not None:
            self._close_item(self.lexeme)
        elif depth == 2 and self.lexeme is not None:
            self._close_lexeme(self.lexeme)
            self.lexeme = None

    def _close_item(self, lexeme: _Lexeme) -> None:
        assert self.open is not None
        assert self.text is not None
        kind, values, where = self.open
        text = " ".join("".join(self.text).split())
        self.open, self.text = None, None
        if not text:
            raise self.fail(f"<{kind}> is empty", where)
        if kind == "grapheme":
            if len(text) > MAX_GRAPHEME_CHARS:
                raise self.fail(f"<grapheme> is over {MAX_GRAPHEME_CHARS} characters", where)
            lexeme.graphemes.append((text, where))
            return
        prefer = values.get("|prefer", "false")
        if prefer not in ("true", "false"):
            raise self.fail('prefer must be "true" or "false"', where)
        alphabet = self.alphabet
        if kind == "phoneme" and "|alphabet" in values:
            alphabet = self._alphabet(values["|alphabet"])
        lexeme.pronunciations.append(_Pronunciation(kind, text, alphabet, prefer == "true", where))

    def _close_lexeme(self, lexeme: _Lexeme) -> None:
        if not lexeme.graphemes:
            raise self.fail("<lexeme> has no <grapheme>", lexeme.where)
        if not lexeme.pronunciations:
            raise self.fail("<lexeme> has no <phoneme> or <alias>", lexeme.where)
        chosen = next((p for p in lexeme.pronunciations if p.prefer), lexeme.pronunciations[0])
        if chosen.kind == "alias":
            if len(chosen.text) > MAX_ALIAS_CHARS:
                raise self.fail(f"<alias> is over {MAX_ALIAS_CHARS} characters", chosen.where)
            value: dict[str, str] = {"alias": chosen.text}
        else:
            try:
                value = {"phoneme": phoneme_in_ipa(chosen.text, chosen.alphabet)}
            except ValueError as exc:
                raise self.fail(f"<phoneme> {str(exc).rstrip('.')}", chosen.where) from exc
        for grapheme, where in lexeme.graphemes:
            if grapheme in self.seen:
                raise self.fail(
                    f'grapheme "{grapheme}" already has a lexeme (line {self.seen[grapheme]})',
                    where,
                )
            self.seen[grapheme] = lexeme.where[0]
            if len(self.rules) == MAX_RULES:
                line, column = where
                raise PlsTooManyRules(f"more than {MAX_RULES} rules", line, column)
            self.rules.append(
                StoredRule(
                    string_to_replace=grapheme,
                    type="alias" if chosen.kind == "alias" else "phoneme",
                    case_sensitive=lexeme.case_sensitive,
                    **value,
                )
            )


def parse(data: bytes) -> Lexicon:
    """The lexicon in `data`; PlsError (with its position) for anything this service does
    not read. DTDs (and so entity declarations: billion laughs, XXE) are refused outright."""
    reader = _Reader()
    parser = DefusedExpatParser(forbid_dtd=True, forbid_entities=True, forbid_external=True)
    parser.setFeature(feature_namespaces, True)
    parser.setContentHandler(reader)
    parser.setErrorHandler(ErrorHandler())
    try:
        parser.parse(io.BytesIO(data))
    except SAXParseException as exc:
        line, column = exc.getLineNumber() or 1, (exc.getColumnNumber() or 0) + 1
        raise PlsError(f"not well-formed XML: {exc.getMessage()}", line, column) from exc
    except DefusedXmlException as exc:
        problem = "a DTD, an entity or an external reference is not allowed in a PLS file"
        raise reader.fail(problem) from exc
    except (LookupError, ValueError) as exc:
        # An encoding expat does not know itself (UTF-8, UTF-16, ISO-8859-1, US-ASCII) is
        # looked up among Python's codecs while the XML declaration is read, and its failure
        # escapes expat's error reporting: an unknown name (LookupError), a codec that is not a
        # single-byte text encoding (ValueError, UnicodeError).
        if isinstance(exc, PlsError) or not reader.in_prolog:
            raise
        raise PlsError(
            "the XML declaration names an encoding this service does not read "
            "(use UTF-8, UTF-16 or a single-byte encoding such as ISO-8859-1)",
            1,
            1,
        ) from exc
    return Lexicon(language=reader.language, rules=reader.rules)


def write(rules: Sequence[StoredRule], language: str | None) -> bytes:
    """A PLS 1.0 file (alphabet "ipa") holding `rules`, in order, one lexeme each."""
    sensitive_only = all(rule.case_sensitive for rule in rules)
    extension = "" if sensitive_only else f" xmlns:ss={quoteattr(CASE_NS)}"
    lines = [
        '<?xml version="1.0" encoding="UTF-8"?>',
        f'<lexicon version="1.0" xmlns="{PLS_NS}"{extension} alphabet="ipa" '
        f"xml:lang={quoteattr(language or UNDETERMINED)}>",
    ]
    for rule in rules:
        attributes = "" if rule.case_sensitive else ' ss:case-sensitive="false"'
        lines.append(f"  <lexeme{attributes}>")
        lines.append(f"    <grapheme>{escape(rule.string_to_replace)}</grapheme>")
        if rule.type == "alias":
            lines.append(f"    <alias>{escape(rule.alias or '')}</alias>")
        else:
            lines.append(f"    <phoneme>{escape(rule.phoneme or '')}</phoneme>")
        lines.append("  </lexeme>")
    lines.append("</lexicon>")
    return ("\n".join(lines) + "\n").encode()
