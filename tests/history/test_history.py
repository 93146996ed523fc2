"""GET /api/v1/history end to end: real TTS and sound jobs in a real worker, listed newest
first, filtered, paged, read one by one, their audio fetched and decoded, deleted (the audio
gone at once, the ledger untouched), and 404 for any other owner."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import soundfile
from fastapi.testclient import TestClient

from soundstage.config import Settings
from soundstage.core.db import Database
from soundstage.voices.service import CatalogCounts
from tests.support.api import assert_error, every_page
from tests.support.factories import Customer, create_customer, principal_of
from tests.support.jobs import submit, wait_for_job

pytestmark = [pytest.mark.services, pytest.mark.usefixtures("worker", "demo_catalog")]

HISTORY = "/api/v1/history"
FIRST = "Good morning."
LAST = "See you soon."


def speak(client: TestClient, customer: Customer, text: str, voice_id: str) -> dict[str, Any]:
    answer = client.post(
        "/api/v1/speech/tts",
        headers=customer.auth(),
        json={"text": text, "voice_id": voice_id, "format": "wav"},
    )
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def history(client: TestClient, customer: Customer, query: str = "") -> dict[str, Any]:
    answer = client.get(f"{HISTORY}{query}", headers=customer.auth())
    assert answer.status_code == 200, answer.text
    return dict(answer.json())


def ids(body: dict[str, Any]) -> list[str]:
    return [item["id"] for item in body["data"]]


def spelt(moment: datetime) -> str:
    """An instant as the API writes them: RFC 3339 UTC with milliseconds."""
    return moment.astimezone(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


def local(settings: Settings, url: str) -> str:
    assert url.startswith(settings.media_base_url)
    return url.removeprefix(settings.public_base_url)


def balance_and_ledger(client: TestClient, customer: Customer) -> tuple[Any, Any]:
    balance = client.get("/api/v1/credits", headers=customer.auth()).json()
    ledger = client.get("/api/v1/credits/ledger?limit=100", headers=customer.auth()).json()
    return (balance["balance"], balance["reserved"]), ledger["data"]


@pytest.fixture(scope="module")
def made(
    client: TestClient, settings: Settings, db: Database, demo_catalog: CatalogCounts
) -> tuple[Customer, dict[str, dict[str, Any]]]:
    """A customer who made, in this order: speech by voice_kal, a sound, speech by
    voice_sarah; and a speech job that failed (its stored request is one the worker refuses),
    which is no generation."""
    customer = create_customer(db, credits_each=5_000)
    failed = submit(
        db,
        settings,
        principal_of(customer),
        "tts",
        {"text": "Never said.", "voice_id": "voice_kal"},
    )
    assert wait_for_job(client, customer, failed)["status"] == "failed"
    first = speak(client, customer, FIRST, "voice_kal")
    answer = client.post(
        "/api/v1/creative/sound",
        headers=customer.auth(),
        json={"prompt": "a door creaking open", "duration_seconds": 1},
    )
    assert answer.status_code == 200, answer.text
    sound = dict(answer.json())
    last = speak(client, customer, LAST, "voice_sarah")
    return customer, {"first": first, "sound": sound, "last": last}


def test_the_history_lists_every_generation_newest_first(
    client: TestClient, settings: Settings, made: tuple[Customer, dict[str, dict[str, Any]]]
) -> None:
    customer, jobs = made
    body = history(client, customer)
    assert (body["object"], body["has_more"]) == ("list", False)
    assert ids(body) == [jobs["last"]["job_id"], jobs["sound"]["job_id"], jobs["first"]["job_id"]]
    last, sound, first = body["data"]
    assert last == {
        "object": "history_item",
        "id": jobs["last"]["job_id"],
        "kind": "tts",
        "status": "completed",
        "created_at": last["created_at"],
        "voice_ids": ["voice_sarah"],
        "text": LAST,
        "prompt": None,
        "turns": None,
        "characters": len(LAST),
        "credits_used": len(LAST),
        "duration_ms": jobs["last"]["duration_ms"],
        "content_type": "audio/wav",
        "audio_url": last["audio_url"],
        "audio_expires_at": last["audio_expires_at"],
    }
    assert (first["voice_ids"], first["text"]) == (["voice_kal"], FIRST)
    assert (sound["kind"], sound["voice_ids"], sound["text"]) == ("sound", [], None)
    assert (sound["prompt"], sound["characters"]) == ("a door creaking open", None)
    assert (sound["credits_used"], sound["duration_ms"]) == (150, 1000)
    assert first["created_at"] < sound["created_at"] < last["created_at"]
    # The signed URL is the audio.
    fetched = client.get(local(settings, first["audio_url"]))
    assert fetched.status_code == 200
    samples, rate = soundfile.read(io.BytesIO(fetched.content))
    assert abs(len(samples) * 1000 / rate - first["duration_ms"]) <= 30


def test_filters_by_kind_voice_text_and_date(
    client: TestClient, made: tuple[Customer, dict[str, dict[str, Any]]]
) -> None:
    customer, jobs = made
    speech = [jobs["last"]["job_id"], jobs["first"]["job_id"]]
    assert ids(history(client, customer, "?kind=tts")) == speech
    assert ids(history(client, customer, "?kind=sound")) == [jobs["sound"]["job_id"]]
    assert ids(history(client, customer, "?kind=music")) == []
    assert ids(history(client, customer, "?voice_id=voice_kal")) == [jobs["first"]["job_id"]]
    assert ids(history(client, customer, "?voice_id=voice_joe")) == []
    assert ids(history(client, customer, "?search=MORNING")) == [jobs["first"]["job_id"]]
    assert ids(history(client, customer, "?search=door&kind=sound")) == [jobs["sound"]["job_id"]]
    assert ids(history(client, customer, "?search=%25")) == []  # a LIKE wildcard is a character
    # An instant is sent as the API writes them: an item's `created_at` as it is.
    after = history(client, customer, "?kind=sound")["data"][0]["created_at"]
    # created_after is inclusive, created_before exclusive.
    assert ids(history(client, customer, f"?created_after={after}")) == [
        jobs["last"]["job_id"],
        jobs["sound"]["job_id"],
    ]
    assert ids(history(client, customer, f"?created_before={after}")) == [jobs["first"]["job_id"]]
    later = spelt(datetime.fromisoformat(after) + timedelta(milliseconds=1))
    assert ids(history(client, customer, f"?created_after={after}&created_before={later}")) == [
        jobs["sound"]["job_id"]
    ]


def test_pages_with_a_cursor(
    client: TestClient, made: tuple[Customer, dict[str, dict[str, Any]]]
) -> None:
    customer, jobs = made
    order = [jobs["last"]["job_id"], jobs["sound"]["job_id"], jobs["first"]["job_id"]]
    assert [item["id"] for item in every_page(client, customer, HISTORY, limit=1)] == order
    page = history(client, customer, "?limit=2")
    assert (ids(page), page["has_more"]) == (order[:2], True)
    page = history(client, customer, f"?limit=2&starting_after={order[1]}")
    assert (ids(page), page["has_more"]) == (order[2:], False)
    page = history(client, customer, f"?limit=1&ending_before={order[2]}")
    assert (ids(page), page["has_more"]) == ([order[1]], True)
    missing = client.get(f"{HISTORY}?starting_after=job_nothing", headers=customer.auth())
    assert assert_error(missing, 404, "history_item_not_found")["param"] == "starting_after"


def test_one_item_and_its_audio(
    client: TestClient, made: tuple[Customer, dict[str, dict[str, Any]]]
) -> None:
    customer, jobs = made
    listed = history(client, customer, "?kind=sound")["data"][0]
    item_id = jobs["sound"]["job_id"]
    one = client.get(f"{HISTORY}/{item_id}", headers=customer.auth())
    assert one.status_code == 200, one.text
    assert {**one.json(), "audio_url": None} == {**listed, "audio_url": None}
    audio = client.get(f"{HISTORY}/{item_id}/audio", headers=customer.auth())
    assert audio.status_code == 200
    assert audio.headers["content-type"] == listed["content_type"] == "audio/wav"
    samples, rate = soundfile.read(io.BytesIO(audio.content))
    assert (len(samples) * 1000 // rate, samples.ndim) == (1000, 2)
    part = client.get(
        f"{HISTORY}/{item_id}/audio", headers={**customer.auth(), "Range": "bytes=0-3"}
    )
    assert (part.status_code, part.content) == (206, b"RIFF")


def test_another_owner_gets_404(
    client: TestClient, db: Database, made: tuple[Customer, dict[str, dict[str, Any]]]
) -> None:
    customer, jobs = made
    stranger = create_customer(db, credits_each=100)
    item_id = jobs["first"]["job_id"]
    for who in (stranger.auth(), customer.auth("production")):
        assert client.get(HISTORY, headers=who).json()["data"] == []
        for method, path in [
            ("GET", f"{HISTORY}/{item_id}"),
            ("GET", f"{HISTORY}/{item_id}/audio"),
            ("DELETE", f"{HISTORY}/{item_id}"),
        ]:
            answer = client.request(method, path, headers=who)
            assert assert_error(answer, 404, "history_item_not_found")["param"] == (
                "history_item_id"
            )
        cursor = client.get(f"{HISTORY}?starting_after={item_id}", headers=who)
        assert_error(cursor, 404, "history_item_not_found")
    assert len(history(client, customer)["data"]) == 3  # still the owner's


def test_a_dialogue_is_found_by_any_turns_voice(
    client: TestClient, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=1_000)
    turns = [
        {"text": "Ready?", "voice_id": "voice_kal"},
        {"text": "Ready.", "voice_id": "voice_sarah"},
        {"text": "Go!", "voice_id": "voice_kal"},
    ]
    answer = client.post("/api/v1/speech/dialogue", headers=customer.auth(), json={"inputs": turns})
    assert answer.status_code == 200, answer.text
    made = answer.json()
    speech = speak(client, customer, "Alone.", "voice_joe")
    item = client.get(f"{HISTORY}/{made['job_id']}", headers=customer.auth()).json()
    assert (item["kind"], item["voice_ids"]) == ("dialogue", ["voice_kal", "voice_sarah"])
    assert (item["text"], item["turns"]) == ("Ready?\nReady.\nGo!", turns)
    assert item["characters"] == item["credits_used"] == len("Ready?Ready.Go!")
    for voice in ("voice_kal", "voice_sarah"):
        assert ids(history(client, customer, f"?voice_id={voice}")) == [made["job_id"]]
    assert ids(history(client, customer, "?voice_id=voice_joe")) == [speech["job_id"]]
    assert ids(history(client, customer, "?search=go!")) == [made["job_id"]]
    assert ids(history(client, customer, "?kind=dialogue")) == [made["job_id"]]


@pytest.mark.parametrize(
    ("query", "param"),
    [
        ("kind=podcast", "kind"),
        ("kind=stt", "kind"),
        ("created_after=yesterday", "created_after"),
        ("created_after=2026-11-23T10:00:00", "created_after"),  # no offset: which zone?
        ("created_after=2026-11-23T10:00:00Z", "created_after"),  # not as the API writes it
        ("created_before=2026-11-23T11:00:00.000%2B01:00", "created_before"),
        (  # an empty range
            "created_after=2026-11-23T10:00:00.000Z&created_before=2026-11-23T10:00:00.000Z",
            "created_before",
        ),
        ("voice_id=", "voice_id"),
        ("search=" + "x" * 201, "search"),
        ("limit=0", "limit"),
        ("limit=101", "limit"),
        ("sort=oldest", "sort"),
    ],
)
def test_a_bad_filter_is_422_naming_it(
    client: TestClient, customer: Customer, query: str, param: str
) -> None:
    answer = client.get(f"{HISTORY}?{query}", headers=customer.auth())
    assert answer.status_code == 422, answer.text
    assert answer.json()["error"]["param"] == param


def test_the_largest_page_is_allowed(client: TestClient, customer: Customer) -> None:
    assert history(client, customer, "?limit=100&search=" + "x" * 200)["data"] == []


def test_deleting_removes_the_audio_at_once_and_keeps_the_charge(
    client: TestClient, settings: Settings, db: Database, demo_catalog: CatalogCounts
) -> None:
    customer = create_customer(db, credits_each=1_000)
    kept = speak(client, customer, "Keep me.", "voice_kal")
    gone = speak(client, customer, "Delete me.", "voice_kal")
    item = client.get(f"{HISTORY}/{gone['job_id']}", headers=customer.auth()).json()
    assert client.get(local(settings, item["audio_url"])).status_code == 200
    books = balance_and_ledger(client, customer)

    deleted = client.delete(f"{HISTORY}/{gone['job_id']}", headers=customer.auth())
    assert deleted.status_code == 200, deleted.text
    assert deleted.json() == {"object": "history_item", "id": gone["job_id"], "deleted": True}

    # Every URL of the audio answers 410 at once: the item's, the job's answer's.
    for url in (item["audio_url"], gone["output_url"]):
        assert_error(client.get(local(settings, url)), 410, "media_expired")
    assert ids(history(client, customer)) == [kept["job_id"]]
    for method, path in [
        ("GET", f"{HISTORY}/{gone['job_id']}"),
        ("GET", f"{HISTORY}/{gone['job_id']}/audio"),
        ("DELETE", f"{HISTORY}/{gone['job_id']}"),
    ]:
        assert_error(
            client.request(method, path, headers=customer.auth()), 404, "history_item_not_found"
        )
    # The job stays, its charge too; its result's URL, signed afresh, answers 410 as well.
    job = client.get(f"/api/v1/jobs/{gone['job_id']}", headers=customer.auth()).json()
    assert (job["status"], job["credits_used"]) == ("completed", len("Delete me."))
    assert datetime.fromisoformat(job["outputs_expire_at"]) <= datetime.now(UTC)
    assert_error(client.get(local(settings, job["result"]["output_url"])), 410, "media_expired")
    assert balance_and_ledger(client, customer) == books
    # The other generation is untouched.
    assert client.get(local(settings, kept["output_url"])).status_code == 200
