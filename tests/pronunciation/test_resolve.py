"""`resolve_rules`, what synthesis calls with a request's `pronunciation_dictionary_locators`:
each version's rules in order, the latest version when none is named, at most three
locators, and 404s naming the locator for what is unknown, deleted or someone else's."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from soundstage.core.errors import AppError
from soundstage.engines.tts.frontend.script import Rule
from soundstage.pronunciation import service as pronunciation
from tests.support.factories import Customer, principal_of
from tests.support.pronunciation import DICTIONARIES, alias_rule, create, phoneme_rule

pytestmark = pytest.mark.services

Locators = list[tuple[str, str | None]]


def resolve(
    db: Database, customer: Customer, locators: Locators, env: str = "sandbox"
) -> list[Rule]:
    with db.read_session() as session:
        return pronunciation.resolve_rules(session, principal_of(customer, env), locators)


def refused(db: Database, customer: Customer, locators: Locators, env: str = "sandbox") -> AppError:
    with pytest.raises(AppError) as caught:
        resolve(db, customer, locators, env)
    return caught.value


def test_rules_come_in_locator_order(client: TestClient, db: Database, customer: Customer) -> None:
    first = create(
        client,
        customer,
        [phoneme_rule("Soundstage", "ˈsaʊndˌsteɪdʒ"), alias_rule("W3C", "W three C")],
    )
    second = create(client, customer, [alias_rule("api", "A P I", case_sensitive=False)])
    v1 = first["latest_version_id"]
    edited = client.post(
        f"{DICTIONARIES}/{first['id']}/rules",
        json={"rules": [alias_rule("W3C", "World Wide Web Consortium")]},
        headers=customer.auth(),
    ).json()
    v2 = edited["latest_version_id"]

    rules = resolve(db, customer, [(second["id"], second["latest_version_id"]), (first["id"], v1)])
    assert rules == [
        Rule(grapheme="api", alias="A P I", case_sensitive=False),
        Rule(grapheme="Soundstage", phoneme="ˈsaʊndˌsteɪdʒ", case_sensitive=True),
        Rule(grapheme="W3C", alias="W three C", case_sensitive=True),
    ]
    # A version is what it was; no version id is the latest.
    assert resolve(db, customer, [(first["id"], v2)])[1].alias == "World Wide Web Consortium"
    assert resolve(db, customer, [(first["id"], None)]) == resolve(
        db, customer, [(first["id"], v2)]
    )
    assert resolve(db, customer, []) == []
    # The same dictionary twice, three locators: every rule, in order.
    three = resolve(db, customer, [(first["id"], v1), (first["id"], v2), (second["id"], None)])
    assert [r.grapheme for r in three] == ["Soundstage", "W3C", "Soundstage", "W3C", "api"]


def test_at_most_three_locators(client: TestClient, db: Database, customer: Customer) -> None:
    made = create(client, customer, [alias_rule("a", "b")])
    locator = (made["id"], made["latest_version_id"])
    assert len(resolve(db, customer, [locator] * 3)) == 3
    error = refused(db, customer, [locator] * 4)
    assert (error.status, error.code, error.param) == (
        422,
        "parameter_invalid",
        "pronunciation_dictionary_locators",
    )


def test_unknown_deleted_and_others_are_404_naming_the_locator(
    client: TestClient, db: Database, customer: Customer, other_customer: Customer
) -> None:
    mine = create(client, customer, [alias_rule("a", "b")])
    other = create(client, customer, [alias_rule("c", "d")])
    good = (mine["id"], mine["latest_version_id"])
    cases: list[tuple[Locators, str, str, str]] = [
        ([good, ("pd_nope", None)], "sandbox", "pronunciation_dictionary_not_found", "[1]"),
        ([("pd_nope", "pdv_nope")], "sandbox", "pronunciation_dictionary_not_found", "[0]"),
        (
            [good, good, (mine["id"], other["latest_version_id"])],
            "sandbox",
            "pronunciation_dictionary_version_not_found",
            "[2]",
        ),
        ([good], "production", "pronunciation_dictionary_not_found", "[0]"),
    ]
    for locators, env, code, index in cases:
        error = refused(db, customer, locators, env)
        assert (error.status, error.code) == (404, code), locators
        assert error.param == f"pronunciation_dictionary_locators{index}"
    stranger = refused(db, other_customer, [good])
    assert (stranger.code, stranger.param) == (
        "pronunciation_dictionary_not_found",
        "pronunciation_dictionary_locators[0]",
    )
    assert client.delete(f"{DICTIONARIES}/{mine['id']}", headers=customer.auth()).status_code == 200
    for locator in (good, (mine["id"], None)):
        gone = refused(db, customer, [locator])
        assert gone.code == "pronunciation_dictionary_not_found"
