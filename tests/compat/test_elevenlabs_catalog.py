"""ElevenLabs' reads through the official SDK against a live server: the voice catalog (v1
whole, v2 searched and paged, one voice), the models and the subscription."""

from __future__ import annotations

import pytest
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError
from fastapi.testclient import TestClient

from tests.support.elevenlabs import ONCE, sdk
from tests.support.factories import Customer


def native_voice_ids(client: TestClient, customer: Customer) -> list[str]:
    ids: list[str] = []
    cursor = ""
    while True:
        page = client.get(f"/api/v1/voices?limit=100{cursor}", headers=customer.auth()).json()
        ids += [v["voice_id"] for v in page["data"]]
        if not page["has_more"]:
            return ids
        cursor = f"&starting_after={ids[-1]}"


def test_voices_are_the_catalog(live_url: str, client: TestClient, customer: Customer) -> None:
    eleven = sdk(live_url, customer.sandbox_key)
    voices = eleven.voices.get_all(show_legacy=True, request_options=ONCE).voices
    assert [v.voice_id for v in voices] == native_voice_ids(client, customer)
    joe = next(v for v in voices if v.voice_id == "voice_joe")
    assert joe.name
    assert joe.category == "premade"
    assert joe.labels is not None
    assert joe.labels["gender"] == "male"
    assert joe.labels["language"] == "en"
    assert joe.preview_url is not None
    assert joe.preview_url.endswith("/previews/voice_joe.mp3")

    one = eleven.voices.get("voice_joe", with_settings=True, request_options=ONCE)
    assert one.voice_id == "voice_joe"
    assert one.settings is not None
    assert one.settings.speed == 1.0
    with pytest.raises(ApiError) as unknown:
        eleven.voices.get("voice_nobody", request_options=ONCE)
    assert unknown.value.status_code == 404
    assert unknown.value.body["detail"]["status"] == "voice_not_found"


def test_voice_search_pages_and_filters(live_url: str, customer: Customer) -> None:
    eleven = sdk(live_url, customer.sandbox_key)
    everything = eleven.voices.get_all(request_options=ONCE).voices
    seen: list[str] = []
    token: str | None = None
    while True:
        page = eleven.voices.search(page_size=3, next_page_token=token, request_options=ONCE)
        assert page.total_count == len(everything)
        assert len(page.voices) <= 3
        seen += [v.voice_id for v in page.voices]
        if not page.has_more:
            assert page.next_page_token is None
            break
        token = page.next_page_token
    assert seen == [v.voice_id for v in everything]

    found = eleven.voices.search(search="JOE", request_options=ONCE)
    assert "voice_joe" in [v.voice_id for v in found.voices]
    assert found.total_count < len(everything)
    spanish = eleven.voices.search(
        language="es", gender="female", include_total_count=True, sort="name", request_options=ONCE
    )
    assert spanish.voices
    for voice in spanish.voices:
        assert voice.labels is not None
        assert (voice.labels["language"], voice.labels["gender"]) == ("es", "female")
    picked = eleven.voices.search(voice_ids=["voice_joe", "voice_kal"], request_options=ONCE)
    assert sorted(v.voice_id for v in picked.voices) == ["voice_joe", "voice_kal"]

    for bad in ({"page_size": 0}, {"page_size": 101}, {"next_page_token": "voice_nobody"}):
        with pytest.raises(ApiError) as refused:
            eleven.voices.search(request_options=ONCE, **bad)
        assert refused.value.status_code == 422
    assert eleven.voices.search(page_size=100, request_options=ONCE).total_count == len(everything)


def test_models(live_url: str, customer: Customer) -> None:
    eleven = sdk(live_url, customer.sandbox_key)
    models = {m.model_id: m for m in eleven.models.list(request_options=ONCE)}
    assert set(models) == {"soundstage_tts", "soundstage_sts"}
    tts = models["soundstage_tts"]
    assert tts.can_do_text_to_speech
    assert not tts.can_do_voice_conversion
    assert tts.maximum_text_length_per_request == 5000
    assert tts.languages is not None
    assert {"en", "es"} <= {language.language_id for language in tts.languages}
    assert models["soundstage_sts"].can_do_voice_conversion


def test_the_user_is_the_keys_account_with_its_subscription(
    live_url: str, customer: Customer
) -> None:
    user = sdk(live_url, customer.sandbox_key).user.get(request_options=ONCE)
    assert (user.user_id, user.workspace_id) == (customer.account_id, customer.account_id)
    assert user.subscription.character_limit == 1000
    assert user.subscription.tier == "sandbox"
    assert user.created_at > 1_700_000_000
    assert not user.is_new_user
    with pytest.raises(ApiError) as refused:
        sdk(live_url, "sk_sandbox_" + "0" * 40).user.get(request_options=ONCE)
    assert refused.value.status_code == 401


def test_subscription_is_the_balance(live_url: str, customer: Customer) -> None:
    eleven = sdk(live_url, customer.sandbox_key)
    subscription = eleven.user.subscription.get(request_options=ONCE)
    assert subscription.character_limit == 1000
    assert subscription.character_count == 0
    assert subscription.tier == "sandbox"
    assert subscription.status == "active"
    production = sdk(live_url, customer.production_key).user.subscription.get(request_options=ONCE)
    assert production.tier == "production"
    with pytest.raises(UnprocessableEntityError):
        # An undeclared query parameter is refused, as everywhere.
        eleven.user.subscription.get(
            request_options={"max_retries": 0, "additional_query_parameters": {"x": "1"}}
        )
