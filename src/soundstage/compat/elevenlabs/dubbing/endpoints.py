"""HTTP endpoints of ElevenLabs' dubbing (the SDK 2.78's `dubbing.create`, `dubbing.get` and
`dubbing.audio.get`) on the native dubbing job."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, File, Form, Path, UploadFile
from fastapi.responses import FileResponse, Response

from soundstage.compat.elevenlabs.dubbing import service
from soundstage.compat.elevenlabs.dubbing.schemas import (
    MAX_LANGUAGE_CHARS,
    ElevenLabsDubbingCreated,
    ElevenLabsDubbingForm,
    ElevenLabsDubbingMetadata,
)
from soundstage.compat.elevenlabs.schemas import MAX_ID
from soundstage.core.deps import DatabaseDep, PrincipalDep, SessionDep, SettingsDep
from soundstage.core.errors import InvalidField
from soundstage.core.openapi import errors
from soundstage.core.routing import UnitOfWorkRoute

router = APIRouter(
    prefix="/elevenlabs/v1/dubbing", tags=["ElevenLabs compatible"], route_class=UnitOfWorkRoute
)

DubbingId = Annotated[str, Path(min_length=1, max_length=MAX_ID)]
Refused = Annotated[
    UploadFile | None, File(description="Not supported (a manual or split-stem dub): refused.")
]


@router.post("", response_model=ElevenLabsDubbingCreated, responses=errors(402, 404, 413, 422))
async def create_dub(
    form: Annotated[ElevenLabsDubbingForm, Form()],
    db: DatabaseDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    file: Annotated[
        UploadFile | None, File(description="The audio or video to dub (or `source_url`).")
    ] = None,
    csv_file: Refused = None,
    foreground_audio_file: Refused = None,
    background_audio_file: Refused = None,
) -> ElevenLabsDubbingCreated:
    """Dub the media into `target_lang` with the native dubbing job (standard tier: 1,500
    credits a minute of media, per started second, charged when the dub is ready), each
    speaker in the catalog voice nearest theirs, over the media's own background. `source_lang`
    `auto` (or absent) is detected. Answers at once with the dub's id (the job's): poll
    GET /v1/dubbing/{dubbing_id} until `dubbed`."""
    for name, given in (
        ("csv_file", csv_file),
        ("foreground_audio_file", foreground_audio_file),
        ("background_audio_file", background_audio_file),
    ):
        if given is not None:
            raise InvalidField(f"{name}: not supported by this service; leave it out.", param=name)
    return await service.create(db, settings, principal, form, file)


@router.get("/{dubbing_id}", response_model=ElevenLabsDubbingMetadata, responses=errors(404))
def get_dub(
    dubbing_id: DubbingId, session: SessionDep, principal: PrincipalDep
) -> ElevenLabsDubbingMetadata:
    """The dub's state: `dubbing` (queued or running), `dubbed` or `failed` (with `error`)."""
    return service.get(session, principal, dubbing_id)


@router.get(
    "/{dubbing_id}/audio/{language_code}",
    response_class=FileResponse,
    responses={
        200: {"content": {"audio/mpeg": {}, "audio/flac": {}, "audio/wav": {}, "video/mp4": {}}},
        **errors(404, 409, 410),
    },
)
def get_dubbed_audio(
    dubbing_id: DubbingId,
    language_code: Annotated[str, Path(min_length=2, max_length=MAX_LANGUAGE_CHARS)],
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
) -> Response:
    """The dubbed file as the native job made it: like the input (MP3 for lossy audio, FLAC
    or WAV for lossless, M4A for AAC, the video with the dub as its sound). 409 before the
    dub is ready; 404 for a language it was not dubbed into."""
    return service.audio(session, settings, principal, dubbing_id, language_code)
