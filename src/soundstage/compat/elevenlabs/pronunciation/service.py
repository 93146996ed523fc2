"""ElevenLabs' pronunciation dictionaries on the native ones: creation from rules or a PLS
file, listing, reading with the latest version's rules, and a version's PLS. ElevenLabs'
fields are checked by the native models, a bound they pass being 422 naming the field as
ElevenLabs spells it (`rules[2].phoneme`)."""

from __future__ import annotations

from typing import Any

from sqlalchemy.orm import Session

from soundstage.compat.elevenlabs.pronunciation.schemas import (
    ElevenLabsAddDictionaryResponse,
    ElevenLabsAddFromFileForm,
    ElevenLabsAddFromRulesBody,
    ElevenLabsAliasRuleOut,
    ElevenLabsDictionariesPage,
    ElevenLabsDictionaryMetadata,
    ElevenLabsDictionaryWithRules,
    ElevenLabsPhonemeRuleOut,
    ElevenLabsRuleIn,
)
from soundstage.compat.elevenlabs.schemas import native_request
from soundstage.core.errors import InvalidField
from soundstage.core.pagination import PageParams
from soundstage.core.principal import Principal
from soundstage.models import PronunciationDictionary
from soundstage.pronunciation import service as pronunciation
from soundstage.pronunciation.errors import PronunciationDictionaryNotFound
from soundstage.pronunciation.schemas import DictionaryCreate, DictionaryFileForm


def _rule_fields(index: int, rule: ElevenLabsRuleIn) -> dict[str, Any]:
    if rule.word_boundaries is False:
        param = f"rules[{index}].word_boundaries"
        raise InvalidField(
            f"{param}: rules match whole words only here; leave it out or send true.",
            param=param,
        )
    fields = {
        "type": rule.type,
        "string_to_replace": rule.string_to_replace,
        "alias": rule.alias,
        "phoneme": rule.phoneme,
        "alphabet": rule.alphabet,
        "case_sensitive": rule.case_sensitive is not False,
    }
    return {name: value for name, value in fields.items() if value is not None}


def _rules_count(
    session: Session, principal: Principal, dictionary: PronunciationDictionary
) -> int:
    version = pronunciation.get_version(
        session, principal, dictionary.id, dictionary.latest_version_id
    )
    return len(pronunciation.version_rules(version))


def _added(
    session: Session, principal: Principal, dictionary: PronunciationDictionary
) -> ElevenLabsAddDictionaryResponse:
    return ElevenLabsAddDictionaryResponse(
        id=dictionary.id,
        name=dictionary.name,
        created_by=dictionary.account_id,
        creation_time_unix=int(dictionary.created_at.timestamp()),
        version_id=dictionary.latest_version_id,
        version_rules_num=_rules_count(session, principal, dictionary),
        description=dictionary.description,
    )


def add_from_rules(
    session: Session, principal: Principal, body: ElevenLabsAddFromRulesBody
) -> ElevenLabsAddDictionaryResponse:
    native = native_request(
        DictionaryCreate,
        {
            "name": body.name,
            "description": body.description,
            "rules": [_rule_fields(i, rule) for i, rule in enumerate(body.rules)],
        },
    )
    dictionary = pronunciation.create(
        session,
        principal,
        name=native.name,
        description=native.description,
        language=None,
        rules=pronunciation.stored_rules(native.rules),
    )
    return _added(session, principal, dictionary)


def add_from_file(
    session: Session, principal: Principal, form: ElevenLabsAddFromFileForm, data: bytes
) -> ElevenLabsAddDictionaryResponse:
    """The lexicon of a W3C PLS file (at most 1,000,000 bytes: 413), as the native
    `POST /api/v1/pronunciation-dictionaries/from-file` reads it."""
    native = native_request(
        DictionaryFileForm, {"name": form.name, "description": form.description}
    )
    dictionary = pronunciation.create_from_pls(
        session, principal, name=native.name, description=native.description, data=data
    )
    return _added(session, principal, dictionary)


def _metadata(
    session: Session, principal: Principal, dictionary: PronunciationDictionary
) -> dict[str, Any]:
    return {
        "id": dictionary.id,
        "latest_version_id": dictionary.latest_version_id,
        "latest_version_rules_num": _rules_count(session, principal, dictionary),
        "name": dictionary.name,
        "created_by": dictionary.account_id,
        "creation_time_unix": int(dictionary.created_at.timestamp()),
        "description": dictionary.description,
    }


def list_dictionaries(
    session: Session, principal: Principal, *, cursor: str | None, page_size: int
) -> ElevenLabsDictionariesPage:
    """The caller's dictionaries in the key's environment, newest first; `cursor` is the
    previous page's `next_cursor` (an unknown one is 404 naming `cursor`)."""
    try:
        rows, has_more = pronunciation.list_dictionaries(
            session, principal, PageParams(limit=page_size, starting_after=cursor)
        )
    except PronunciationDictionaryNotFound as exc:
        exc.param = "cursor"
        raise
    return ElevenLabsDictionariesPage(
        pronunciation_dictionaries=[
            ElevenLabsDictionaryMetadata(**_metadata(session, principal, row)) for row in rows
        ],
        next_cursor=rows[-1].id if has_more and rows else None,
        has_more=has_more,
    )


def get_dictionary(
    session: Session, principal: Principal, dictionary_id: str
) -> ElevenLabsDictionaryWithRules:
    dictionary = pronunciation.get(
        session, principal, dictionary_id, param="pronunciation_dictionary_id"
    )
    version = pronunciation.get_version(
        session, principal, dictionary.id, dictionary.latest_version_id
    )
    rules: list[ElevenLabsAliasRuleOut | ElevenLabsPhonemeRuleOut] = [
        ElevenLabsAliasRuleOut(
            string_to_replace=rule.string_to_replace,
            case_sensitive=rule.case_sensitive,
            alias=rule.alias or "",
        )
        if rule.type == "alias"
        else ElevenLabsPhonemeRuleOut(
            string_to_replace=rule.string_to_replace,
            case_sensitive=rule.case_sensitive,
            phoneme=rule.phoneme or "",
        )
        for rule in pronunciation.version_rules(version)
    ]
    return ElevenLabsDictionaryWithRules(**_metadata(session, principal, dictionary), rules=rules)


def version_pls(
    session: Session, principal: Principal, dictionary_id: str, version_id: str
) -> bytes:
    """The version's rules as a W3C PLS 1.0 file (alphabet IPA)."""
    return pronunciation.version_pls(session, principal, dictionary_id, version_id)
