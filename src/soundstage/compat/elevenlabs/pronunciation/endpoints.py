"""HTTP endpoints of ElevenLabs' pronunciation dictionaries (the SDK 2.78's
`pronunciation_dictionaries.create_from_file`, `create_from_rules`, `list`, `get` and
`download`) on the native dictionaries."""

from __future__ import annotations

from typing import Annotated, Literal

from fastapi import APIRouter, File, Form, Path, Query, UploadFile
from fastapi.responses import Response

from soundstage.compat.elevenlabs.pronunciation import service
from soundstage.compat.elevenlabs.pronunciation.schemas import (
    ElevenLabsAddDictionaryResponse,
    ElevenLabsAddFromFileForm,
    ElevenLabsAddFromRulesBody,
    ElevenLabsDictionariesPage,
    ElevenLabsDictionaryWithRules,
)
from soundstage.compat.elevenlabs.schemas import MAX_ID
from soundstage.core.deps import PrincipalDep, SessionDep
from soundstage.core.errors import ParameterMissing
from soundstage.core.openapi import errors
from soundstage.core.params import QueryBool, QueryInt
from soundstage.core.routing import UnitOfWorkRoute

router = APIRouter(
    prefix="/elevenlabs/v1/pronunciation-dictionaries",
    tags=["ElevenLabs compatible"],
    route_class=UnitOfWorkRoute,
)

PLS_MEDIA_TYPE = "application/pls+xml"
DictionaryId = Annotated[str, Path(min_length=1, max_length=MAX_ID)]


@router.post(
    "/add-from-file", response_model=ElevenLabsAddDictionaryResponse, responses=errors(413, 422)
)
def add_from_file(
    form: Annotated[ElevenLabsAddFromFileForm, Form()],
    session: SessionDep,
    principal: PrincipalDep,
    file: Annotated[
        UploadFile | None,
        File(description="A W3C PLS 1.0 lexicon (alphabet ipa or x-sampa), 1 MB at most."),
    ] = None,
) -> ElevenLabsAddDictionaryResponse:
    """A dictionary from a PLS file, read as the native `POST /api/v1/pronunciation-
    dictionaries/from-file` reads it (each grapheme a rule; 422 `pls_invalid` naming the line
    and column). `workspace_access` is accepted and ignored."""
    if file is None:
        raise ParameterMissing("file: Send the lexicon as a PLS `file`.", param="file")
    return service.add_from_file(session, principal, form, file.file.read())


@router.post(
    "/add-from-rules", response_model=ElevenLabsAddDictionaryResponse, responses=errors(422)
)
def add_from_rules(
    body: ElevenLabsAddFromRulesBody, session: SessionDep, principal: PrincipalDep
) -> ElevenLabsAddDictionaryResponse:
    """A dictionary from rules, as the native API takes them: at most 1,000; a bad rule is
    422 naming it (`rules[3].phoneme`)."""
    return service.add_from_rules(session, principal, body)


@router.get("", response_model=ElevenLabsDictionariesPage, responses=errors(404, 422))
def list_dictionaries(
    session: SessionDep,
    principal: PrincipalDep,
    cursor: Annotated[
        str | None,
        Query(min_length=1, max_length=MAX_ID, description="The previous page's `next_cursor`."),
    ] = None,
    page_size: Annotated[QueryInt, Query(ge=1, le=100, description="1 to 100.")] = 30,
    sort: Annotated[
        Literal["creation_time_unix"] | None,
        Query(description="Only `creation_time_unix` (the newest first)."),
    ] = None,
    sort_direction: Annotated[
        Literal["descending", "DESCENDING"] | None, Query(description="Only descending.")
    ] = None,
    include_archived: Annotated[
        QueryBool | None, Query(description="Accepted, ignored: nothing is archived here.")
    ] = None,
) -> ElevenLabsDictionariesPage:
    """The caller's dictionaries in the key's environment, newest first."""
    return service.list_dictionaries(session, principal, cursor=cursor, page_size=page_size)


@router.get(
    "/{pronunciation_dictionary_id}",
    response_model=ElevenLabsDictionaryWithRules,
    responses=errors(404),
)
def get_dictionary(
    pronunciation_dictionary_id: DictionaryId, session: SessionDep, principal: PrincipalDep
) -> ElevenLabsDictionaryWithRules:
    """The dictionary with its latest version's rules (phonemes in IPA)."""
    return service.get_dictionary(session, principal, pronunciation_dictionary_id)


@router.get(
    "/{dictionary_id}/{version_id}/download",
    response_class=Response,
    responses={200: {"content": {PLS_MEDIA_TYPE: {}}}, **errors(404)},
)
def download_version(
    dictionary_id: DictionaryId,
    version_id: Annotated[str, Path(min_length=1, max_length=MAX_ID)],
    session: SessionDep,
    principal: PrincipalDep,
) -> Response:
    """The version as a W3C PLS 1.0 file (`alphabet="ipa"`), which `add-from-file` reads back
    into the same rules."""
    data = service.version_pls(session, principal, dictionary_id, version_id)
    return Response(
        data,
        media_type=PLS_MEDIA_TYPE,
        headers={"Content-Disposition": f'attachment; filename="{dictionary_id}-{version_id}.pls"'},
    )
