"""Pronunciation dictionaries: create (from rules or a PLS file), new versions by adding or
removing rules, read, delete, and `resolve_rules` for synthesis.

A version's rules never change: every edit writes a new version and moves the dictionary's
`latest_version_id` on. An account has at most `MAX_DICTIONARIES` dictionaries per
environment, held as numbered slots under a unique key (as webhook endpoints are).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from sqlalchemy.orm import Session

from soundstage.core.errors import InvalidField, PayloadTooLarge
from soundstage.core.ids import new_id
from soundstage.core.pagination import PageParams, paginate
from soundstage.core.principal import Principal
from soundstage.core.tenancy import Owner, owner_key
from soundstage.core.timeutil import utcnow
from soundstage.engines.tts.frontend.script import Rule
from soundstage.models import PronunciationDictionary, PronunciationDictionaryVersion
from soundstage.pronunciation import pls, repository
from soundstage.pronunciation.errors import (
    InvalidPls,
    PronunciationDictionaryBusy,
    PronunciationDictionaryNotFound,
    PronunciationDictionaryVersionNotFound,
    TooManyPronunciationDictionaries,
    TooManyPronunciationRules,
)
from soundstage.pronunciation.rules import MAX_RULES, StoredRule, merged, phoneme_in_ipa, rules_of
from soundstage.pronunciation.schemas import RuleIn

# Dictionaries per account and environment, and locators per synthesis (ElevenLabs' limit).
MAX_DICTIONARIES = 100
MAX_LOCATORS = 3
LOCATORS_PARAM = "pronunciation_dictionary_locators"
# Edits of one dictionary that race (each retried after losing) before one answers 409.
_EDIT_ATTEMPTS = 5


def stored_rules(rules: Sequence[RuleIn], param: str = "rules") -> list[StoredRule]:
    """The request's rules as stored (phonemes in IPA), each checked: 422 naming the rule's
    field (`rules[3].phoneme`). A `string_to_replace` may appear once."""
    out: list[StoredRule] = []
    first: dict[str, int] = {}
    for i, rule in enumerate(rules):
        where = f"{param}[{i}]"
        text = rule.string_to_replace
        if text in first:
            raise InvalidField(
                f"{where}.string_to_replace: {text!r} is already {param}[{first[text]}].",
                param=f"{where}.string_to_replace",
            )
        first[text] = i
        if rule.type == "alias":
            _refuse_fields(rule, where, ("phoneme", "alphabet"))
            if rule.alias is None:
                raise InvalidField(
                    f"{where}.alias: required for an alias rule.", param=f"{where}.alias"
                )
            out.append(
                StoredRule(text, "alias", alias=rule.alias, case_sensitive=rule.case_sensitive)
            )
            continue
        _refuse_fields(rule, where, ("alias",))
        if rule.phoneme is None:
            raise InvalidField(
                f"{where}.phoneme: required for a phoneme rule.", param=f"{where}.phoneme"
            )
        if rule.alphabet is None:
            raise InvalidField(
                f'{where}.alphabet: required for a phoneme rule ("ipa" or "x-sampa").',
                param=f"{where}.alphabet",
            )
        try:
            ipa = phoneme_in_ipa(rule.phoneme, rule.alphabet)
        except ValueError as exc:
            message = str(exc).rstrip(".")
            raise InvalidField(f"{where}.phoneme: {message}.", param=f"{where}.phoneme") from exc
        out.append(StoredRule(text, "phoneme", phoneme=ipa, case_sensitive=rule.case_sensitive))
    return out


def _refuse_fields(rule: RuleIn, where: str, names: tuple[str, ...]) -> None:
    for name in names:
        if getattr(rule, name) is not None:
            raise InvalidField(
                f"{where}.{name}: not a field of a {rule.type} rule.", param=f"{where}.{name}"
            )


# Creation


def create(
    session: Session,
    principal: Principal,
    *,
    name: str,
    description: str | None,
    language: str | None,
    rules: list[StoredRule],
) -> PronunciationDictionary:
    """A new dictionary whose version 1 holds `rules`, in one of the owner's slots: two
    creations racing for the last free one both insert it, and the database refuses the
    second, which looks again and finds none free."""
    _check_count(len(rules), "rules")
    for _ in range(MAX_DICTIONARIES + 1):
        used = repository.used_slots(session, principal)
        free = [slot for slot in range(MAX_DICTIONARIES) if slot not in used]
        if not free:
            break
        now = utcnow()
        dictionary_id, version_id = new_id("pd"), new_id("pdv")
        dictionary = PronunciationDictionary(
            id=dictionary_id,
            account_id=principal.account_id,
            environment=principal.environment,
            name=name,
            description=description,
            language=language,
            latest_version_id=version_id,
            version_count=1,
            slot=free[0],
            created_at=now,
        )
        version = _version(principal, dictionary_id, version_id, 1, rules)
        if repository.add_in_free_slot(session, dictionary, version):
            return dictionary
    raise TooManyPronunciationDictionaries(
        f"This account has {MAX_DICTIONARIES} pronunciation dictionaries in "
        f"{principal.environment}, the most allowed; delete one to add another."
    )


def create_from_pls(
    session: Session, principal: Principal, *, name: str, description: str | None, data: bytes
) -> PronunciationDictionary:
    """A dictionary from a PLS file's lexicon (its `xml:lang` is the dictionary's language).
    413 over `pls.MAX_PLS_BYTES`; 422 `pls_invalid` naming the line and column."""
    if len(data) > pls.MAX_PLS_BYTES:
        raise PayloadTooLarge(
            f"file: a PLS file may be at most {pls.MAX_PLS_BYTES:,} bytes.", param="file"
        )
    try:
        lexicon = pls.parse(data)
    except pls.PlsTooManyRules as exc:
        raise TooManyPronunciationRules(f"file: {exc}.", param="file") from exc
    except pls.PlsError as exc:
        raise InvalidPls(f"file: {exc}.", param="file") from exc
    if not lexicon.rules:
        raise InvalidPls("file: the lexicon has no <lexeme>.", param="file")
    return create(
        session,
        principal,
        name=name,
        description=description,
        language=lexicon.language,
        rules=lexicon.rules,
    )


def _check_count(count: int, param: str) -> None:
    if count > MAX_RULES:
        raise TooManyPronunciationRules(
            f"{param}: a version holds at most {MAX_RULES:,} rules; this one would hold {count:,}.",
            param=param,
        )


def _version(
    owner: Owner, dictionary_id: str, version_id: str, number: int, rules: list[StoredRule]
) -> PronunciationDictionaryVersion:
    account_id, environment = owner_key(owner)
    return PronunciationDictionaryVersion(
        id=version_id,
        account_id=account_id,
        environment=environment,
        dictionary_id=dictionary_id,
        version_number=number,
        rules=[rule.to_json() for rule in rules],
        created_at=utcnow(),
    )


# Reading


def get(
    session: Session, owner: Owner, dictionary_id: str, *, param: str = "dictionary_id"
) -> PronunciationDictionary:
    dictionary = repository.get_dictionary(session, owner, dictionary_id)
    if dictionary is None:
        raise PronunciationDictionaryNotFound(
            f"No such pronunciation dictionary: {dictionary_id}", param=param
        )
    return dictionary


def list_dictionaries(
    session: Session, principal: Principal, params: PageParams
) -> tuple[list[PronunciationDictionary], bool]:
    query = repository.dictionaries_query(principal)
    return paginate(
        session, query, PronunciationDictionary, params, PronunciationDictionaryNotFound
    )


def list_versions(
    session: Session, principal: Principal, dictionary_id: str, params: PageParams
) -> tuple[list[PronunciationDictionaryVersion], bool]:
    """The dictionary's versions, newest first (404 for a dictionary not the caller's)."""
    get(session, principal, dictionary_id)
    query = repository.versions_query(principal, dictionary_id)
    return paginate(
        session,
        query,
        PronunciationDictionaryVersion,
        params,
        PronunciationDictionaryVersionNotFound,
    )


def get_version(
    session: Session,
    owner: Owner,
    dictionary_id: str,
    version_id: str,
    *,
    param: str = "version_id",
    dictionary_param: str = "dictionary_id",
) -> PronunciationDictionaryVersion:
    """A version of the owner's dictionary: 404 for an unknown dictionary, then for a version
    that is not that dictionary's."""
    get(session, owner, dictionary_id, param=dictionary_param)
    version = repository.get_version(session, owner, dictionary_id, version_id)
    if version is None:
        raise PronunciationDictionaryVersionNotFound(
            f"No such version of pronunciation dictionary {dictionary_id}: {version_id}",
            param=param,
        )
    return version


def version_rules(version: PronunciationDictionaryVersion) -> list[StoredRule]:
    return rules_of(version.rules)


def version_pls(session: Session, owner: Owner, dictionary_id: str, version_id: str) -> bytes:
    """The version's rules as a PLS 1.0 file (alphabet "ipa")."""
    version = get_version(session, owner, dictionary_id, version_id)
    dictionary = get(session, owner, dictionary_id)
    return pls.write(rules_of(version.rules), dictionary.language)


# New versions


def add_rules(
    session: Session, principal: Principal, dictionary_id: str, rules: list[StoredRule]
) -> PronunciationDictionary:
    """A new version: the latest's rules with each of `rules` replacing the rule of the same
    `string_to_replace`, or appended."""
    return _edit(session, principal, dictionary_id, lambda current: merged(current, rules))


def remove_rules(
    session: Session, principal: Principal, dictionary_id: str, rule_strings: list[str]
) -> PronunciationDictionary:
    """A new version without the rules of these `string_to_replace` (each must be in the
    latest version: 422 naming the one that is not)."""

    def without(current: list[StoredRule]) -> list[StoredRule]:
        present = {rule.string_to_replace for rule in current}
        for i, text in enumerate(rule_strings):
            if text not in present:
                raise InvalidField(
                    f"rule_strings[{i}]: no rule of the latest version replaces {text!r}.",
                    param=f"rule_strings[{i}]",
                )
        gone = set(rule_strings)
        return [rule for rule in current if rule.string_to_replace not in gone]

    return _edit(session, principal, dictionary_id, without)


def _edit(
    session: Session,
    principal: Principal,
    dictionary_id: str,
    change: Callable[[list[StoredRule]], list[StoredRule]],
) -> PronunciationDictionary:
    for _ in range(_EDIT_ATTEMPTS):
        dictionary = get(session, principal, dictionary_id)
        latest = get_version(session, principal, dictionary_id, dictionary.latest_version_id)
        rules = change(rules_of(latest.rules))
        _check_count(len(rules), "rules")
        seen, version_id = dictionary.version_count, new_id("pdv")
        if repository.advance(session, principal, dictionary_id, seen, version_id):
            repository.add_version(
                session, _version(principal, dictionary_id, version_id, seen + 1, rules)
            )
            return get(session, principal, dictionary_id)
    raise PronunciationDictionaryBusy(
        f"Pronunciation dictionary {dictionary_id} is being edited; retry."
    )


def delete(session: Session, principal: Principal, dictionary_id: str) -> None:
    """Delete the dictionary and all its versions (their locators are unknown from then on)."""
    if not repository.delete_dictionary(session, principal, dictionary_id):
        raise PronunciationDictionaryNotFound(
            f"No such pronunciation dictionary: {dictionary_id}", param="dictionary_id"
        )


# Synthesis


def resolve_rules(
    session: Session, owner: Owner, locators: Sequence[tuple[str, str | None]]
) -> list[Rule]:
    """The rules of each (dictionary id, version id) of the owner's, in order: the first
    locator's rules, then the second's, and so on (a version id of None: the latest
    version). At most `MAX_LOCATORS` (422); 404 `pronunciation_dictionary_not_found` or
    `pronunciation_dictionary_version_not_found` naming `pronunciation_dictionary_locators[i]`
    for one that is unknown or another owner's."""
    if len(locators) > MAX_LOCATORS:
        raise InvalidField(
            f"{LOCATORS_PARAM}: at most {MAX_LOCATORS} dictionaries per request.",
            param=LOCATORS_PARAM,
        )
    rules: list[Rule] = []
    for i, (dictionary_id, version_id) in enumerate(locators):
        param = f"{LOCATORS_PARAM}[{i}]"
        if version_id is None:
            version_id = get(session, owner, dictionary_id, param=param).latest_version_id
        version = get_version(
            session, owner, dictionary_id, version_id, param=param, dictionary_param=param
        )
        rules.extend(rule.to_rule() for rule in rules_of(version.rules))
    return rules
