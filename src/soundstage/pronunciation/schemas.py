"""Request and response bodies of pronunciation dictionaries (ElevenLabs' rule shape)."""

from __future__ import annotations

import unicodedata
from typing import Annotated, Literal

from pydantic import AfterValidator, BaseModel, ConfigDict, Field

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp
from soundstage.pronunciation.rules import (
    MAX_ALIAS_CHARS,
    MAX_GRAPHEME_CHARS,
    MAX_PHONEME_CHARS,
    MAX_RULES,
    MAX_XSAMPA_CHARS,
    Alphabet,
    RuleType,
)

MAX_NAME_CHARS = 100
MAX_DESCRIPTION_CHARS = 500
MAX_LANGUAGE_CHARS = 35


def _printable(value: str | None) -> str | None:
    # Rules are written back into PLS (XML 1.0 refuses control characters) and matched
    # against text: no rule needs one.
    if value is not None and any(unicodedata.category(char) == "Cc" for char in value):
        raise ValueError("must not contain control characters")
    return value


Printable = AfterValidator(_printable)


class RuleIn(RequestModel):
    """One rule: `string_to_replace` read as `alias` (other words) or as `phoneme` (IPA, or
    X-SAMPA converted to IPA when it comes in). `alias` is required for an alias rule,
    `phoneme` and `alphabet` for a phoneme rule; the other rule type's fields are refused."""

    type: RuleType
    string_to_replace: Annotated[str, Printable] = Field(
        min_length=1,
        max_length=MAX_GRAPHEME_CHARS,
        description="The word or phrase as written in the text.",
    )
    alias: Annotated[str | None, Printable] = Field(
        default=None, min_length=1, max_length=MAX_ALIAS_CHARS, description="Words to say instead."
    )
    phoneme: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_XSAMPA_CHARS,
        description="The pronunciation, in `alphabet`: IPA letters and diacritics, stress ˈ ˌ, "
        f"length ː, syllable breaks `.`, tie bars and spaces; at most {MAX_PHONEME_CHARS} "
        f"characters in IPA (X-SAMPA as sent: {MAX_XSAMPA_CHARS}).",
    )
    alphabet: Alphabet | None = Field(
        default=None, description="`ipa` or `x-sampa` (stored converted to IPA)."
    )
    case_sensitive: bool = Field(
        default=True, description="Whether the text must match `string_to_replace`'s case."
    )


class DictionaryCreate(RequestModel):
    name: Annotated[str, Printable] = Field(min_length=1, max_length=MAX_NAME_CHARS)
    description: Annotated[str | None, Printable] = Field(
        default=None, max_length=MAX_DESCRIPTION_CHARS
    )
    language: str | None = Field(
        default=None,
        min_length=1,
        max_length=MAX_LANGUAGE_CHARS,
        pattern=r"^[A-Za-z0-9-]+$",
        description="BCP-47 tag of the dictionary's language (written as the PLS `xml:lang`).",
    )
    rules: list[RuleIn] = Field(min_length=1, max_length=MAX_RULES)


class DictionaryFileForm(BaseModel):
    """The form fields of a PLS upload besides `file`. FastAPI hands the model every field of
    the form: the app-wide check refuses undeclared ones (core.params)."""

    model_config = ConfigDict(extra="ignore", strict=True, str_strip_whitespace=True)

    name: Annotated[str, Printable] = Field(min_length=1, max_length=MAX_NAME_CHARS)
    description: Annotated[str | None, Printable] = Field(
        default=None, max_length=MAX_DESCRIPTION_CHARS
    )


class RulesAdd(RequestModel):
    rules: list[RuleIn] = Field(
        min_length=1,
        max_length=MAX_RULES,
        description="Each replaces the rule of the same `string_to_replace`, or is appended.",
    )


class RulesRemove(RequestModel):
    rule_strings: list[Annotated[str, Field(min_length=1, max_length=MAX_GRAPHEME_CHARS)]] = Field(
        min_length=1,
        max_length=MAX_RULES,
        description="The `string_to_replace` of each rule to remove (each must be in the "
        "latest version).",
    )


class AliasRuleOut(BaseModel):
    type: Literal["alias"] = "alias"
    string_to_replace: str
    alias: str
    case_sensitive: bool


class PhonemeRuleOut(BaseModel):
    type: Literal["phoneme"] = "phoneme"
    string_to_replace: str
    phoneme: str
    alphabet: Literal["ipa"] = Field(
        default="ipa", description="Always `ipa`: X-SAMPA is converted when it comes in."
    )
    case_sensitive: bool


RuleOut = Annotated[AliasRuleOut | PhonemeRuleOut, Field(discriminator="type")]


class DictionaryOut(BaseModel):
    model_config = ConfigDict(from_attributes=True)

    object: Literal["pronunciation_dictionary"] = "pronunciation_dictionary"
    id: str
    name: str
    description: str | None
    language: str | None
    latest_version_id: str = Field(
        description="Pass it with `id` as a locator to use exactly these rules."
    )
    version_count: int = Field(
        description="Versions made so far; the latest is number `version_count`."
    )
    created_at: Timestamp


class DictionaryDeleted(BaseModel):
    object: Literal["pronunciation_dictionary"] = "pronunciation_dictionary"
    id: str
    deleted: Literal[True] = True


class VersionOut(BaseModel):
    object: Literal["pronunciation_dictionary_version"] = "pronunciation_dictionary_version"
    id: str
    dictionary_id: str
    version_number: int
    rules: list[RuleOut] = Field(description="In order; later rules never change.")
    created_at: Timestamp
