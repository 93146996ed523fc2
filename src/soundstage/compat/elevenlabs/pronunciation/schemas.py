"""Request and response bodies of ElevenLabs' pronunciation dictionaries, as the official SDK
(2.78) sends and reads them."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from soundstage.compat.elevenlabs.schemas import FormModel
from soundstage.core.schemas import RequestModel
from soundstage.pronunciation.schemas import MAX_DESCRIPTION_CHARS, MAX_NAME_CHARS

WorkspaceAccess = Literal["admin", "editor", "commenter", "viewer"]
# What a rule's strings may be as sent: the native rule's own bounds (100 characters
# replaced, an alias of 200, a phoneme of 200 in IPA) are checked when it is stored.
MAX_RULE_TEXT = 1_000
MAX_RULES_SENT = 1_000


class ElevenLabsRuleIn(RequestModel):
    """An alias rule (`alias`) or a phoneme rule (`phoneme`, `alphabet` `ipa` or `x-sampa`),
    checked as the native API checks its rules (422 naming `rules[i].<field>`)."""

    type: Literal["alias", "phoneme"]
    string_to_replace: str = Field(max_length=MAX_RULE_TEXT, description="1 to 100 characters.")
    alias: str | None = Field(
        default=None, max_length=MAX_RULE_TEXT, description="An alias rule's words, 1 to 200."
    )
    phoneme: str | None = Field(
        default=None, max_length=MAX_RULE_TEXT, description="A phoneme rule's pronunciation."
    )
    alphabet: str | None = Field(
        default=None,
        max_length=32,
        description="`ipa` or `x-sampa` (stored in IPA); `cmu-arpabet` is refused.",
    )
    case_sensitive: bool | None = Field(default=None, description="Default true.")
    word_boundaries: bool | None = Field(
        default=None,
        description="True or absent: a rule matches whole words only (false is refused).",
    )


class ElevenLabsAddFromRulesBody(RequestModel):
    rules: list[ElevenLabsRuleIn] = Field(
        min_length=1, max_length=MAX_RULES_SENT, description="1 to 1,000."
    )
    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION_CHARS)
    workspace_access: WorkspaceAccess | None = Field(
        default=None, description="Accepted, ignored: an account is its own workspace."
    )


class ElevenLabsAddFromFileForm(FormModel):
    """The multipart fields of POST /v1/pronunciation-dictionaries/add-from-file besides
    `file`."""

    name: str = Field(min_length=1, max_length=MAX_NAME_CHARS)
    description: str | None = Field(default=None, max_length=MAX_DESCRIPTION_CHARS)
    workspace_access: WorkspaceAccess | None = Field(
        default=None, description="Accepted, ignored: an account is its own workspace."
    )


class ElevenLabsAddDictionaryResponse(BaseModel):
    id: str = Field(description="The native dictionary's id (`pd_…`).")
    name: str
    created_by: str = Field(description="The account's id.")
    creation_time_unix: int = Field(description="Unix seconds.")
    version_id: str = Field(description="Its version 1 (`pdv_…`).")
    version_rules_num: int
    description: str | None = None
    permission_on_resource: Literal["admin"] = "admin"


class ElevenLabsDictionaryMetadata(BaseModel):
    id: str
    latest_version_id: str
    latest_version_rules_num: int
    name: str
    permission_on_resource: Literal["admin"] = "admin"
    created_by: str = Field(description="The account's id.")
    creation_time_unix: int = Field(description="Unix seconds.")
    archived_time_unix: int | None = Field(default=None, description="Always null.")
    description: str | None = None


class ElevenLabsAliasRuleOut(BaseModel):
    type: Literal["alias"] = "alias"
    string_to_replace: str
    case_sensitive: bool
    word_boundaries: Literal[True] = True
    alias: str


class ElevenLabsPhonemeRuleOut(BaseModel):
    type: Literal["phoneme"] = "phoneme"
    string_to_replace: str
    case_sensitive: bool
    word_boundaries: Literal[True] = True
    phoneme: str
    alphabet: Literal["ipa"] = Field(default="ipa", description="Always IPA, as stored.")


class ElevenLabsDictionaryWithRules(ElevenLabsDictionaryMetadata):
    rules: list[ElevenLabsAliasRuleOut | ElevenLabsPhonemeRuleOut] = Field(
        description="The latest version's rules, in order."
    )


class ElevenLabsDictionariesPage(BaseModel):
    pronunciation_dictionaries: list[ElevenLabsDictionaryMetadata]
    next_cursor: str | None = Field(
        default=None, description="The last dictionary's id, while `has_more`."
    )
    has_more: bool
