"""Typed job payloads: a stored request the kind's model cannot read fails its job (an
internal error, nothing charged, the worker carries on); a result is stored in the exact
shape the handler built, and reads back to the same model."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.jobs.handlers import get_kind
from soundstage.jobs.payloads import JobResult, MediaRef
from tests.support.factories import Customer, principal_of
from tests.support.jobs import submit, wait_for
from tests.support.jobs_plugin import ToneResult


@pytest.mark.services
@pytest.mark.usefixtures("worker")
def test_a_malformed_stored_request_fails_its_job_not_the_worker(
    client: TestClient, db: Database, settings: Settings, customer: Customer
) -> None:
    principal = principal_of(customer)
    # test.echo reads `value`, a string or an integer: a list is not one, and none is none.
    wrong_type = submit(db, settings, principal, "test.echo", {"value": [1, 2]}, 100)
    missing = submit(db, settings, principal, "test.echo", {"credits": 5}, 100)
    for job_id in (wrong_type, missing):
        failed = wait_for(client, customer, job_id, "failed")
        assert failed["error"]["code"] == "internal_error"
        assert "does not fit its kind 'test.echo'" in failed["error"]["message"]
        assert (failed["result"], failed["credits_used"]) == (None, 0)
    assert client.get("/api/v1/credits", headers=customer.auth()).json()["balance"] == 1000
    # The same worker goes on with well-formed jobs.
    fine = submit(db, settings, principal, "test.echo", {"value": "still here"})
    assert wait_for(client, customer, fine, "completed")["result"] == {"echo": "still here"}


class _Word(JobResult):
    word: str
    speaker: str | None = None


class _Transcript(JobResult):
    output_url: MediaRef
    words: list[_Word]
    # Only when detected.
    language_probability: float | None = None


def test_a_result_is_stored_as_built_and_reads_back_the_same() -> None:
    reference = {"$media": "med_1", "filename": "out.wav", "expires_at": "2026-12-01T00:00:00"}
    built = _Transcript(
        output_url=MediaRef.model_validate(reference),
        words=[_Word(word="hi"), _Word(word="there", speaker="speaker_1")],
    )
    stored = built.stored()
    # Unset optional fields stay absent (not null); the media reference is kept as made.
    assert stored == {
        "output_url": reference,
        "words": [{"word": "hi"}, {"word": "there", "speaker": "speaker_1"}],
    }
    assert _Transcript.model_validate(stored) == built
    assert _Transcript.model_validate(stored).stored() == stored
    # A reference made before media expired (no expiry) round-trips without one.
    old = {"$media": "med_0", "filename": "old.wav"}
    assert MediaRef.model_validate(old).model_dump(by_alias=True, exclude_unset=True) == old


def test_a_registered_kind_stores_its_own_result_model_only() -> None:
    kind = get_kind("test.tone")
    assert kind is not None
    reference = {"$media": "med_2", "filename": "tone.wav", "expires_at": "2026-12-01T00:00:00"}
    result = ToneResult(output_url=MediaRef.model_validate(reference), duration_ms=1000)
    assert kind.stored_result(result) == {"output_url": reference, "duration_ms": 1000}
    assert kind.result_model.model_validate(kind.stored_result(result)) == result
    with pytest.raises(TypeError, match="not its ToneResult"):
        kind.stored_result(_Transcript(output_url=result.output_url, words=[]))
