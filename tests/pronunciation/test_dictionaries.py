"""Pronunciation dictionaries over HTTP: creation from rules (IPA and X-SAMPA), rule checks
naming the rule, immutable versions made by adding and removing rules, listing, deletion,
and isolation between accounts and environments."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.pronunciation import service as pronunciation
from soundstage.pronunciation.rules import StoredRule
from tests.support.api import assert_error, every_page
from tests.support.factories import Customer, principal_of
from tests.support.pronunciation import (
    DICTIONARIES,
    alias_rule,
    create,
    phoneme_rule,
    version,
)

pytestmark = pytest.mark.services

SOUNDSTAGE_IPA = "ˈsaʊndˌsteɪdʒ"
SOUNDSTAGE_XSAMPA = '"saUnd%steIdZ'


def test_creation_from_rules_is_version_1(client: TestClient, customer: Customer) -> None:
    created = create(
        client,
        customer,
        [
            phoneme_rule("Soundstage", SOUNDSTAGE_IPA),
            alias_rule("W3C", "World Wide Web Consortium", case_sensitive=False),
            phoneme_rule("tomato", 't@"mA:t@U', alphabet="x-sampa"),
        ],
        description="Our names",
        language="en-GB",
    )
    assert created["id"].startswith("pd_")
    assert created["object"] == "pronunciation_dictionary"
    assert (created["name"], created["description"], created["language"]) == (
        "Brand names",
        "Our names",
        "en-GB",
    )
    assert created["version_count"] == 1
    got = client.get(f"{DICTIONARIES}/{created['id']}", headers=customer.auth())
    assert got.status_code == 200
    assert got.json() == created

    first = version(client, customer, created["id"], created["latest_version_id"])
    assert (first["object"], first["version_number"]) == ("pronunciation_dictionary_version", 1)
    assert first["dictionary_id"] == created["id"]
    assert first["rules"] == [
        {
            "type": "phoneme",
            "string_to_replace": "Soundstage",
            "phoneme": SOUNDSTAGE_IPA,
            "alphabet": "ipa",
            "case_sensitive": True,
        },
        {
            "type": "alias",
            "string_to_replace": "W3C",
            "alias": "World Wide Web Consortium",
            "case_sensitive": False,
        },
        {
            "type": "phoneme",
            "string_to_replace": "tomato",
            "phoneme": "təˈmɑːtəʊ",
            "alphabet": "ipa",
            "case_sensitive": True,
        },
    ]


@pytest.mark.parametrize(
    ("xsampa", "ipa"),
    [
        (SOUNDSTAGE_XSAMPA, SOUNDSTAGE_IPA),
        ("t_hi:", "tʰiː"),  # aspiration, length
        ("r\\`@`", "ɻɚ"),  # the longest symbol first: r\` before r\
        ("t_S", "t͡S".replace("S", "ʃ")),  # the tie bar
        ("{ n_0", "æ n̥"),  # spaces kept, a combining diacritic
    ],
)
def test_x_sampa_is_stored_as_ipa(
    client: TestClient, customer: Customer, xsampa: str, ipa: str
) -> None:
    created = create(client, customer, [phoneme_rule("word", xsampa, alphabet="x-sampa")])
    rules = version(client, customer, created["id"], created["latest_version_id"])["rules"]
    assert (rules[0]["phoneme"], rules[0]["alphabet"]) == (ipa, "ipa")


@pytest.mark.parametrize(
    ("rule", "param"),
    [
        (phoneme_rule("Soundstage", "SAUND"), "rules[3].phoneme"),  # ASCII capitals
        (phoneme_rule("Soundstage", "saʊnd!"), "rules[3].phoneme"),
        (phoneme_rule("Soundstage", "ˈː"), "rules[3].phoneme"),  # marks, no segment
        (phoneme_rule("Soundstage", "saUnd$", alphabet="x-sampa"), "rules[3].phoneme"),
        (phoneme_rule("Soundstage", "saʊnd", alphabet="klingon"), "rules[3].alphabet"),
        ({**phoneme_rule("Soundstage", "saʊnd"), "alphabet": None}, "rules[3].alphabet"),
        ({"type": "phoneme", "string_to_replace": "Soundstage"}, "rules[3].phoneme"),
        ({"type": "alias", "string_to_replace": "Soundstage"}, "rules[3].alias"),
        ({**alias_rule("Soundstage", "sound stage"), "phoneme": "saʊnd"}, "rules[3].phoneme"),
        ({**phoneme_rule("Soundstage", "saʊnd"), "alias": "sound"}, "rules[3].alias"),
        (alias_rule("W3C", "again"), "rules[3].string_to_replace"),  # repeats rules[0]
        (alias_rule("Sound\u0007stage", "sound stage"), "rules[3].string_to_replace"),
        (alias_rule("  ", "sound stage"), "rules[3].string_to_replace"),
        ({**alias_rule("Soundstage", "x"), "case_sensitive": "yes"}, "rules[3].case_sensitive"),
        ({**alias_rule("Soundstage", "x"), "type": "stress"}, "rules[3].type"),
    ],
)
def test_a_bad_rule_is_422_naming_it(
    client: TestClient, customer: Customer, rule: dict[str, Any], param: str
) -> None:
    rules = [alias_rule("W3C", "W 3 C"), alias_rule("a", "b"), alias_rule("c", "d"), rule]
    response = client.post(
        DICTIONARIES, json={"name": "Bad", "rules": rules}, headers=customer.auth()
    )
    assert assert_error(response, 422, "parameter_invalid")["param"] == param
    listed = client.get(DICTIONARIES, headers=customer.auth()).json()["data"]
    assert listed == []  # nothing was made


def test_adding_and_removing_rules_make_new_versions_and_keep_the_old_ones(
    client: TestClient, customer: Customer
) -> None:
    created = create(
        client, customer, [alias_rule("W3C", "W three C"), phoneme_rule("Soundstage", "saʊnd")]
    )
    dictionary_id, v1 = created["id"], created["latest_version_id"]
    before = version(client, customer, dictionary_id, v1)

    added = client.post(
        f"{DICTIONARIES}/{dictionary_id}/rules",
        json={
            "rules": [
                phoneme_rule("Soundstage", SOUNDSTAGE_IPA),  # replaces, in its place
                alias_rule("API", "A P I", case_sensitive=False),  # appended
            ]
        },
        headers=customer.auth(),
    )
    assert added.status_code == 200, added.text
    v2 = added.json()["latest_version_id"]
    assert v2 != v1
    assert added.json()["version_count"] == 2
    second = version(client, customer, dictionary_id, v2)
    assert second["version_number"] == 2
    assert [
        (r["string_to_replace"], r.get("phoneme", r.get("alias"))) for r in second["rules"]
    ] == [
        ("W3C", "W three C"),
        ("Soundstage", SOUNDSTAGE_IPA),
        ("API", "A P I"),
    ]

    removed = client.post(
        f"{DICTIONARIES}/{dictionary_id}/rules/remove",
        json={"rule_strings": ["W3C", "API"]},
        headers=customer.auth(),
    )
    assert removed.status_code == 200, removed.text
    v3 = removed.json()["latest_version_id"]
    assert removed.json()["version_count"] == 3
    third = version(client, customer, dictionary_id, v3)
    assert [r["string_to_replace"] for r in third["rules"]] == ["Soundstage"]

    # Earlier versions are unchanged.
    assert version(client, customer, dictionary_id, v1) == before
    assert version(client, customer, dictionary_id, v2) == second
    got = client.get(f"{DICTIONARIES}/{dictionary_id}", headers=customer.auth()).json()
    assert (got["latest_version_id"], got["version_count"]) == (v3, 3)
    versions = f"{DICTIONARIES}/{dictionary_id}/versions"
    listed = client.get(f"{versions}?limit=2", headers=customer.auth()).json()
    assert [v["id"] for v in listed["data"]] == [v3, v2]
    assert listed["has_more"] is True
    assert listed["data"][1] == second
    rest = client.get(f"{versions}?starting_after={v2}", headers=customer.auth()).json()
    assert ([v["id"] for v in rest["data"]], rest["has_more"]) == ([v1], False)

    # Removing every rule leaves an empty version; removing one that is not there is 422.
    emptied = client.post(
        f"{DICTIONARIES}/{dictionary_id}/rules/remove",
        json={"rule_strings": ["Soundstage"]},
        headers=customer.auth(),
    )
    assert emptied.status_code == 200
    assert (
        version(client, customer, dictionary_id, emptied.json()["latest_version_id"])["rules"] == []
    )
    missing = client.post(
        f"{DICTIONARIES}/{dictionary_id}/rules/remove",
        json={"rule_strings": ["Soundstage"]},
        headers=customer.auth(),
    )
    assert assert_error(missing, 422, "parameter_invalid")["param"] == "rule_strings[0]"
    bad_add = client.post(
        f"{DICTIONARIES}/{dictionary_id}/rules",
        json={"rules": [alias_rule("ok", "fine"), phoneme_rule("bad", "BAD")]},
        headers=customer.auth(),
    )
    assert assert_error(bad_add, 422, "parameter_invalid")["param"] == "rules[1].phoneme"
    after = client.get(f"{DICTIONARIES}/{dictionary_id}", headers=customer.auth()).json()
    assert after["version_count"] == 4  # the refused edits made no version


def test_a_version_of_another_dictionary_is_404(client: TestClient, customer: Customer) -> None:
    one = create(client, customer, [alias_rule("a", "b")])
    two = create(client, customer, [alias_rule("c", "d")])
    for suffix in ("", "/pls"):
        response = client.get(
            f"{DICTIONARIES}/{one['id']}/versions/{two['latest_version_id']}{suffix}",
            headers=customer.auth(),
        )
        error = assert_error(response, 404, "pronunciation_dictionary_version_not_found")
        assert error["param"] == "version_id"


def test_list_is_paginated_newest_first(client: TestClient, customer: Customer) -> None:
    made = [create(client, customer, [alias_rule("a", "b")], name=f"D{i}")["id"] for i in range(5)]
    page = client.get(f"{DICTIONARIES}?limit=2", headers=customer.auth()).json()
    assert page["object"] == "list"
    assert [d["id"] for d in page["data"]] == made[::-1][:2]
    assert page["has_more"] is True
    after = client.get(
        f"{DICTIONARIES}?limit=2&starting_after={made[3]}", headers=customer.auth()
    ).json()
    assert [d["id"] for d in after["data"]] == [made[2], made[1]]
    assert [d["id"] for d in every_page(client, customer, DICTIONARIES)] == made[::-1]
    unknown = client.get(f"{DICTIONARIES}?starting_after=pd_nope", headers=customer.auth())
    assert assert_error(unknown, 404, "pronunciation_dictionary_not_found")["param"] == (
        "starting_after"
    )


def every_call(dictionary_id: str, version_id: str) -> list[tuple[str, str, Any]]:
    """(method, path, JSON body) of every route on this dictionary, valid but for who calls."""
    one = f"{DICTIONARIES}/{dictionary_id}"
    return [
        ("GET", one, None),
        ("GET", f"{one}/versions", None),
        ("GET", f"{one}/versions/{version_id}", None),
        ("GET", f"{one}/versions/{version_id}/pls", None),
        ("POST", f"{one}/rules", {"rules": [alias_rule("c", "d")]}),
        ("POST", f"{one}/rules/remove", {"rule_strings": ["a"]}),
        ("DELETE", one, None),
    ]


def test_delete_makes_the_dictionary_and_its_versions_unknown(
    client: TestClient, customer: Customer
) -> None:
    created = create(client, customer, [alias_rule("a", "b")])
    dictionary_id, v1 = created["id"], created["latest_version_id"]
    deleted = client.delete(f"{DICTIONARIES}/{dictionary_id}", headers=customer.auth())
    assert deleted.status_code == 200
    assert deleted.json() == {
        "object": "pronunciation_dictionary",
        "id": dictionary_id,
        "deleted": True,
    }
    for method, path, body in every_call(dictionary_id, v1):
        response = client.request(method, path, json=body, headers=customer.auth())
        error = assert_error(response, 404, "pronunciation_dictionary_not_found")
        assert error["param"] == "dictionary_id", path
    assert client.get(DICTIONARIES, headers=customer.auth()).json()["data"] == []


@pytest.mark.parametrize("who", ["other account", "other environment"])
def test_others_see_nothing(
    client: TestClient, customer: Customer, other_customer: Customer, who: str
) -> None:
    created = create(client, customer, [alias_rule("a", "b")])
    dictionary_id, v1 = created["id"], created["latest_version_id"]
    stranger = other_customer.auth() if who == "other account" else customer.auth("production")
    create(client, customer, [alias_rule("x", "y")], environment="production")  # their own
    for method, path, body in every_call(dictionary_id, v1):
        response = client.request(method, path, json=body, headers=stranger)
        assert_error(response, 404, "pronunciation_dictionary_not_found")
    listed = client.get(DICTIONARIES, headers=stranger).json()["data"]
    assert dictionary_id not in {d["id"] for d in listed}
    # Untouched for the owner.
    mine = client.get(f"{DICTIONARIES}/{dictionary_id}", headers=customer.auth()).json()
    assert (mine["latest_version_id"], mine["version_count"]) == (v1, 1)


def test_two_edits_at_once_make_two_versions(
    client: TestClient, db: Database, customer: Customer
) -> None:
    created = create(client, customer, [alias_rule("a", "b")])
    dictionary_id = created["id"]
    answers: list[Any] = []
    # One edit is made in a transaction left open while another arrives over HTTP: that one
    # waits (SQLite's write lock; PostgreSQL's row lock on the conditional UPDATE, after which
    # it finds the version taken and starts again from the new latest).
    with db.session() as session:
        pronunciation.add_rules(
            session, principal_of(customer), dictionary_id, [StoredRule("c", "alias", alias="d")]
        )
        racer = threading.Thread(
            target=lambda: answers.append(
                client.post(
                    f"{DICTIONARIES}/{dictionary_id}/rules",
                    json={"rules": [alias_rule("e", "f")]},
                    headers=customer.auth(),
                )
            )
        )
        racer.start()
        racer.join(0.5)
    racer.join(60)
    [answer] = answers
    assert answer.status_code == 200, answer.text
    assert answer.json()["version_count"] == 3
    latest = version(client, customer, dictionary_id, answer.json()["latest_version_id"])
    assert latest["version_number"] == 3
    assert [r["string_to_replace"] for r in latest["rules"]] == ["a", "c", "e"]
