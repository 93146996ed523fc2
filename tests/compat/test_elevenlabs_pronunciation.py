"""ElevenLabs' pronunciation dictionaries through the official SDK against a live server: a
PLS file added and applied in text to speech (it changes what is said), rules added, listed
page by page, read back and downloaded as PLS, and the errors ElevenLabs' clients expect."""

from __future__ import annotations

from typing import Any

import pytest
from elevenlabs import ElevenLabs, PronunciationDictionaryVersionLocator
from elevenlabs.core.api_error import ApiError
from elevenlabs.errors import UnprocessableEntityError
from elevenlabs.types import (
    GetPronunciationDictionaryWithRulesResponseModelRulesItem_Alias as AliasRule,
)
from elevenlabs.types import (
    GetPronunciationDictionaryWithRulesResponseModelRulesItem_Phoneme as PhonemeRule,
)

from soundstage.core.db import Database
from tests.support.elevenlabs import ONCE, decode_output, sdk
from tests.support.factories import Customer, create_customer
from tests.support.pronunciation import alias_rule, lexicon, phoneme_rule

VOICE = "voice_kal"  # Festival's diphone voice: the fastest engine
# Nine words in place of one: what is said lasts several times longer.
ALIAS = "the quick brown fox jumps over the lazy dog"
PLS = lexicon([(["zork"], "alias", ALIAS)])


@pytest.fixture(scope="module")
def customer(db: Database) -> Customer:
    return create_customer(db, credits_each=10_000)


@pytest.fixture(scope="module")
def client(live_url: str, customer: Customer) -> ElevenLabs:
    return sdk(live_url, customer.sandbox_key)


def seconds_said(client: ElevenLabs, text: str, **fields: Any) -> float:
    audio = b"".join(
        client.text_to_speech.convert(
            VOICE, text=text, output_format="pcm_16000", request_options=ONCE, **fields
        )
    )
    return decode_output(audio, "pcm_16000").seconds


def test_a_pls_file_changes_what_text_to_speech_says(client: ElevenLabs) -> None:
    created = client.pronunciation_dictionaries.create_from_file(
        name="Brand names",
        file=("lexicon.pls", PLS, "application/pls+xml"),
        description="From a PLS file",
        workspace_access="viewer",
        request_options=ONCE,
    )
    assert created.id.startswith("pd_")
    assert created.version_id.startswith("pdv_")
    assert (created.name, created.description, created.version_rules_num) == (
        "Brand names",
        "From a PLS file",
        1,
    )
    read = client.pronunciation_dictionaries.get(created.id, request_options=ONCE)
    assert read.latest_version_id == created.version_id
    assert read.creation_time_unix == created.creation_time_unix
    [rule] = read.rules
    assert isinstance(rule, AliasRule)
    assert (rule.string_to_replace, rule.alias, rule.case_sensitive) == ("zork", ALIAS, True)

    # The ids taken by text to speech's locators, with or without the version.
    plain = seconds_said(client, "zork")
    exact = PronunciationDictionaryVersionLocator(
        pronunciation_dictionary_id=created.id, version_id=created.version_id
    )
    latest = PronunciationDictionaryVersionLocator(pronunciation_dictionary_id=created.id)
    aliased = seconds_said(client, "zork", pronunciation_dictionary_locators=[exact])
    # "zork" is under a second; the nine words of the alias more than twice as long.
    assert aliased >= 2 * plain, (plain, aliased)
    again = seconds_said(client, "zork", pronunciation_dictionary_locators=[latest])
    assert again == pytest.approx(aliased, abs=0.05)

    # The version downloads as PLS, which adds back as the same rules.
    with client.pronunciation_dictionaries.with_raw_response.download(
        created.id, created.version_id, request_options=ONCE
    ) as raw:
        assert raw.headers["content-type"].startswith("application/pls+xml")
        pls = b"".join(raw.data)
    assert b"<grapheme>zork</grapheme>" in pls
    assert ALIAS.encode() in pls
    copy = client.pronunciation_dictionaries.create_from_file(
        name="Copy", file=("copy.pls", pls), request_options=ONCE
    )
    copied = client.pronunciation_dictionaries.get(copy.id, request_options=ONCE)
    assert [r.model_dump() for r in copied.rules] == [r.model_dump() for r in read.rules]


def test_rules_are_added_listed_by_page_and_read_in_ipa(live_url: str, db: Database) -> None:
    client = sdk(live_url, create_customer(db).sandbox_key)
    made = [
        client.pronunciation_dictionaries.create_from_rules(
            name=f"Rules {n}",
            rules=[
                alias_rule("W3C", "World Wide Web Consortium", case_sensitive=False),
                phoneme_rule("tomato", 't@"mA:t@U', "x-sampa"),
            ],
            request_options=ONCE,
        )
        for n in range(3)
    ]
    assert all(d.version_rules_num == 2 for d in made)
    read = client.pronunciation_dictionaries.get(made[0].id, request_options=ONCE)
    alias, phoneme = read.rules
    assert isinstance(alias, AliasRule)
    assert isinstance(phoneme, PhonemeRule)
    assert (alias.alias, alias.case_sensitive, alias.word_boundaries) == (
        "World Wide Web Consortium",
        False,
        True,
    )
    # X-SAMPA is stored, and read back, in IPA.
    ipa = "t\u0259\u02c8m\u0251\u02d0t\u0259\u028a"
    assert (phoneme.phoneme, phoneme.alphabet) == (ipa, "ipa")

    first = client.pronunciation_dictionaries.list(page_size=2, request_options=ONCE)
    assert first.has_more
    assert first.next_cursor == first.pronunciation_dictionaries[-1].id
    rest = client.pronunciation_dictionaries.list(
        cursor=first.next_cursor,
        page_size=2,
        sort="creation_time_unix",
        sort_direction="descending",
        include_archived=False,
        request_options=ONCE,
    )
    assert not rest.has_more
    assert rest.next_cursor is None
    listed = first.pronunciation_dictionaries + rest.pronunciation_dictionaries
    # Newest first, each with its latest version and how many rules it holds.
    assert [d.id for d in listed] == [d.id for d in reversed(made)]
    assert [(d.latest_version_id, d.latest_version_rules_num) for d in listed] == [
        (d.version_id, 2) for d in reversed(made)
    ]


def detail(error: ApiError) -> dict[str, Any]:
    body: dict[str, Any] = error.body["detail"]
    return body


def test_errors_in_elevenlabs_shape(
    live_url: str, db: Database, customer: Customer, client: ElevenLabs
) -> None:
    with pytest.raises(ApiError) as unknown:
        client.pronunciation_dictionaries.get("pd_unknown", request_options=ONCE)
    assert unknown.value.status_code == 404
    assert detail(unknown.value)["status"] == "pronunciation_dictionary_not_found"

    made = client.pronunciation_dictionaries.create_from_rules(
        name="One", rules=[alias_rule("a", "b")], request_options=ONCE
    )
    # Another account's dictionary is unknown, and so is one of the key's other environment.
    for stranger in (create_customer(db).sandbox_key, customer.production_key):
        with pytest.raises(ApiError) as hidden:
            sdk(live_url, stranger).pronunciation_dictionaries.get(made.id, request_options=ONCE)
        assert hidden.value.status_code == 404
    with pytest.raises(ApiError) as version:
        b"".join(
            client.pronunciation_dictionaries.download(made.id, "pdv_unknown", request_options=ONCE)
        )
    assert version.value.status_code == 404
    assert detail(version.value)["status"] == "pronunciation_dictionary_version_not_found"

    def refused(call: Any) -> dict[str, Any]:
        with pytest.raises(UnprocessableEntityError) as error:
            call()
        return detail(error.value)

    def from_rules(rules: list[dict[str, Any]]) -> Any:
        return lambda: client.pronunciation_dictionaries.create_from_rules(
            name="Bad", rules=rules, request_options=ONCE
        )

    # A version holds 1,000 rules: one more is refused, naming the field.
    many = [alias_rule(f"word{n}", "x") for n in range(1001)]
    assert (
        client.pronunciation_dictionaries.create_from_rules(
            name="Full", rules=many[:1000], request_options=ONCE
        ).version_rules_num
        == 1000
    )
    assert "rules" in refused(from_rules(many))["message"]
    # CMU Arpabet is not read here; a rule is matched on whole words only.
    arpabet = refused(from_rules([phoneme_rule("tomato", "T AH0 M EY1 T OW2", "cmu-arpabet")]))
    assert arpabet["message"].startswith("rules[0].alphabet")
    loose = refused(from_rules([alias_rule("a", "b", word_boundaries=False)]))
    assert loose["message"].startswith("rules[0].word_boundaries")
    phoneme = refused(from_rules([phoneme_rule("a", "b", "ipa"), phoneme_rule("c", "!!", "ipa")]))
    assert phoneme["message"].startswith("rules[1].phoneme")

    not_pls = refused(
        lambda: client.pronunciation_dictionaries.create_from_file(
            name="Bad", file=("bad.pls", b"<lexicon"), request_options=ONCE
        )
    )
    assert not_pls["status"] == "pls_invalid"
    no_file = refused(
        lambda: client.pronunciation_dictionaries.create_from_file(name="Bad", request_options=ONCE)
    )
    assert (no_file["status"], no_file["message"][:5]) == ("parameter_missing", "file:")
