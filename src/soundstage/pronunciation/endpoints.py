"""HTTP endpoints of pronunciation dictionaries: create (JSON rules or a PLS file), list,
read, versions (rules and PLS download), new versions by adding or removing rules, delete."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, UploadFile
from fastapi.responses import Response

from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.openapi import errors
from soundstage.core.pagination import ListResponse, PageDep
from soundstage.core.routing import API_V1, UnitOfWorkRoute
from soundstage.models import PronunciationDictionaryVersion
from soundstage.pronunciation import pls, service
from soundstage.pronunciation.schemas import (
    AliasRuleOut,
    DictionaryCreate,
    DictionaryDeleted,
    DictionaryFileForm,
    DictionaryOut,
    PhonemeRuleOut,
    RulesAdd,
    RulesRemove,
    VersionOut,
)

router = APIRouter(
    prefix=f"{API_V1}/pronunciation-dictionaries",
    tags=["Pronunciation dictionaries"],
    route_class=UnitOfWorkRoute,
)

PLS_MEDIA_TYPE = "application/pls+xml"


def _version_out(version: PronunciationDictionaryVersion) -> VersionOut:
    """Each stored rule as the answer's alias or phoneme rule, by its `type`."""
    rules: list[AliasRuleOut | PhonemeRuleOut] = [
        AliasRuleOut(
            string_to_replace=rule.string_to_replace,
            alias=rule.alias or "",
            case_sensitive=rule.case_sensitive,
        )
        if rule.type == "alias"
        else PhonemeRuleOut(
            string_to_replace=rule.string_to_replace,
            phoneme=rule.phoneme or "",
            case_sensitive=rule.case_sensitive,
        )
        for rule in service.version_rules(version)
    ]
    return VersionOut(
        id=version.id,
        dictionary_id=version.dictionary_id,
        version_number=version.version_number,
        rules=rules,
        created_at=version.created_at,
    )


@router.post("", response_model=DictionaryOut, responses=errors(422))
def create_pronunciation_dictionary(
    body: DictionaryCreate, session: SessionDep, principal: PrincipalDep
) -> DictionaryOut:
    """A dictionary from rules (ElevenLabs' shape): `{"type": "alias", "string_to_replace",
    "alias"}` or `{"type": "phoneme", "string_to_replace", "phoneme", "alphabet": "ipa" |
    "x-sampa"}`, each with `case_sensitive` (default true). X-SAMPA is stored converted to
    IPA. Its rules are version 1. A bad rule is 422 naming it (`rules[3].phoneme`); at most
    1,000 rules, and 100 dictionaries per account and environment (422
    `too_many_pronunciation_dictionaries`)."""
    rules = service.stored_rules(body.rules)
    dictionary = service.create(
        session,
        principal,
        name=body.name,
        description=body.description,
        language=body.language,
        rules=rules,
    )
    return DictionaryOut.model_validate(dictionary)


@router.post("/from-file", response_model=DictionaryOut, responses=errors(413, 422))
def create_pronunciation_dictionary_from_file(
    file: Annotated[
        UploadFile,
        File(description="A W3C PLS 1.0 lexicon (alphabet ipa or x-sampa), 1 MB at most."),
    ],
    form: Annotated[DictionaryFileForm, Form()],
    session: SessionDep,
    principal: PrincipalDep,
) -> DictionaryOut:
    """A dictionary from a W3C PLS 1.0 file (multipart `file`, with `name`): each grapheme
    of a lexeme becomes a rule with the lexeme's preferred (else first) `<phoneme>` or
    `<alias>`; its `xml:lang` is the dictionary's `language`. A file that is not well-formed
    or not PLS is 422 `pls_invalid`, its message naming the line and column; DTDs and
    entities are refused (no XXE, no entity expansion); over 1,000,000 bytes is 413."""
    data = file.file.read(pls.MAX_PLS_BYTES + 1)
    dictionary = service.create_from_pls(
        session, principal, name=form.name, description=form.description, data=data
    )
    return DictionaryOut.model_validate(dictionary)


@router.get("", response_model=ListResponse[DictionaryOut])
def list_pronunciation_dictionaries(
    session: SessionDep, principal: PrincipalDep, page: PageDep
) -> ListResponse[DictionaryOut]:
    """The caller's pronunciation dictionaries in the key's environment, newest first."""
    rows, has_more = service.list_dictionaries(session, principal, page)
    return ListResponse[DictionaryOut](
        data=[DictionaryOut.model_validate(d) for d in rows], has_more=has_more
    )


@router.get("/{dictionary_id}", response_model=DictionaryOut, responses=errors(404))
def get_pronunciation_dictionary(
    dictionary_id: str, session: SessionDep, principal: PrincipalDep
) -> DictionaryOut:
    """One dictionary of the caller's, with its `latest_version_id` and `version_count`."""
    return DictionaryOut.model_validate(service.get(session, principal, dictionary_id))


@router.delete("/{dictionary_id}", response_model=DictionaryDeleted, responses=errors(404))
def delete_pronunciation_dictionary(
    dictionary_id: str, session: SessionDep, principal: PrincipalDep
) -> DictionaryDeleted:
    """Delete the dictionary and all its versions: from then on it and its locators are 404
    `pronunciation_dictionary_not_found`."""
    service.delete(session, principal, dictionary_id)
    return DictionaryDeleted(id=dictionary_id)


@router.post(
    "/{dictionary_id}/rules", response_model=DictionaryOut, responses=errors(404, 409, 422)
)
def add_pronunciation_rules(
    dictionary_id: str, body: RulesAdd, session: SessionDep, principal: PrincipalDep
) -> DictionaryOut:
    """A new version: the latest version's rules, each of `rules` replacing the rule of the
    same `string_to_replace` (in its place) or appended. Earlier versions keep their rules."""
    rules = service.stored_rules(body.rules)
    return DictionaryOut.model_validate(service.add_rules(session, principal, dictionary_id, rules))


@router.post(
    "/{dictionary_id}/rules/remove",
    response_model=DictionaryOut,
    responses=errors(404, 409, 422),
)
def remove_pronunciation_rules(
    dictionary_id: str, body: RulesRemove, session: SessionDep, principal: PrincipalDep
) -> DictionaryOut:
    """A new version without the rules whose `string_to_replace` is in `rule_strings` (each
    must be in the latest version; a version may end up with no rules)."""
    return DictionaryOut.model_validate(
        service.remove_rules(session, principal, dictionary_id, body.rule_strings)
    )


@router.get(
    "/{dictionary_id}/versions", response_model=ListResponse[VersionOut], responses=errors(404)
)
def list_pronunciation_dictionary_versions(
    dictionary_id: str, session: SessionDep, principal: PrincipalDep, page: PageDep
) -> ListResponse[VersionOut]:
    """The dictionary's versions with their rules, newest first."""
    rows, has_more = service.list_versions(session, principal, dictionary_id, page)
    return ListResponse[VersionOut](data=[_version_out(v) for v in rows], has_more=has_more)


@router.get(
    "/{dictionary_id}/versions/{version_id}", response_model=VersionOut, responses=errors(404)
)
def get_pronunciation_dictionary_version(
    dictionary_id: str, version_id: str, session: SessionDep, principal: PrincipalDep
) -> VersionOut:
    """A version's rules, in order (phonemes in IPA)."""
    return _version_out(service.get_version(session, principal, dictionary_id, version_id))


@router.get(
    "/{dictionary_id}/versions/{version_id}/pls",
    response_class=Response,
    responses={200: {"content": {PLS_MEDIA_TYPE: {}}}, **errors(404)},
)
def download_pronunciation_dictionary_version(
    dictionary_id: str, version_id: str, session: SessionDep, principal: PrincipalDep
) -> Response:
    """The version as a W3C PLS 1.0 file (`alphabet="ipa"`), which `POST …/from-file` reads
    back into the same rules (case-insensitive rules carry `ss:case-sensitive="false"`)."""
    data = service.version_pls(session, principal, dictionary_id, version_id)
    filename = f"{dictionary_id}-{version_id}.pls"
    return Response(
        data,
        media_type=PLS_MEDIA_TYPE,
        headers={"Content-Disposition": f'attachment; filename="{filename}"'},
    )
