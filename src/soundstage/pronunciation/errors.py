"""Errors of pronunciation dictionaries."""

from soundstage.core.errors import Conflict, InvalidField, NotFound

__all__ = [
    "InvalidPls",
    "PronunciationDictionaryBusy",
    "PronunciationDictionaryNotFound",
    "PronunciationDictionaryVersionNotFound",
    "TooManyPronunciationDictionaries",
    "TooManyPronunciationRules",
]


class PronunciationDictionaryNotFound(NotFound):
    """No such pronunciation dictionary (or it was deleted)."""

    code = "pronunciation_dictionary_not_found"


class PronunciationDictionaryVersionNotFound(NotFound):
    """No such version of this pronunciation dictionary."""

    code = "pronunciation_dictionary_version_not_found"


class TooManyPronunciationDictionaries(InvalidField):
    """The account has the most pronunciation dictionaries allowed in this environment (100);
    delete one to add another."""

    code = "too_many_pronunciation_dictionaries"


class TooManyPronunciationRules(InvalidField):
    """The version would hold more rules than a version may (1,000)."""

    code = "too_many_pronunciation_rules"


class InvalidPls(InvalidField):
    """The file is not a W3C PLS 1.0 lexicon this service reads (not well-formed XML, an
    encoding it does not read, a DTD or entity declaration, an unknown alphabet, a lexeme
    without a grapheme or a pronunciation); the message names the line and column."""

    code = "pls_invalid"


class PronunciationDictionaryBusy(Conflict):
    """Other edits of the dictionary kept taking the next version number first; retry."""

    code = "pronunciation_dictionary_busy"
