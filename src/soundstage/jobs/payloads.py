"""The typed payloads of jobs: each kind declares the model its stored request is read as and
the model of the result it stores (jobs.handlers.declare). The features submit the request
model (jobs.service stores its JSON) and read the result back as the model (their answers
extend it); results are stored exactly as the handlers built them (see JobResult.stored)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, WithJsonSchema


class JobRequest(BaseModel):
    """What a kind's stored request is read as, in the worker, before its handler runs.

    Lax on purpose: the payload was written by the submitting process (perhaps an earlier
    version of the service), so the API's own rules are not applied again, and keys a kind
    does not read (`duration_ms`, the submitter's bookkeeping) are ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)


class JobResult(BaseModel):
    """What a kind's handler answers, stored as the job's result.

    A field the handler leaves unset is absent from the stored result: optional keys (`words`
    without `timestamps`, `background_url` without `return_background`) stay absent rather
    than becoming nulls, so results keep the exact shape the API and webhooks have shown."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    def stored(self) -> dict[str, Any]:
        """The JSON stored on the job (media references as MediaStore.save_output made them)."""
        return self.model_dump(by_alias=True, exclude_unset=True)


class MediaRef(BaseModel):
    """A stored output in a job's result (what MediaStore.save_output returns): kept as is in
    the database, shown as a freshly signed URL when the job is read (MediaStore.render)."""

    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)

    media_id: str = Field(alias="$media")
    filename: str
    # Absent from references made before media expired.
    expires_at: str | None = None


# A stored output in a result model: the MediaRef its handler stores, the signed URL (a
# string) the API shows once the job is read; documented as the URL.
MediaLink = Annotated[MediaRef | str, WithJsonSchema({"type": "string"})]


def shown_url(link: MediaRef | str) -> str:
    """A MediaLink of a result read through the API (jobs.service): its signed URL."""
    if isinstance(link, MediaRef):
        raise TypeError(f"{link.media_id} is a stored reference, not a signed URL")
    return link
