"""Every bound of pronunciation dictionaries, one value inside and one outside: the name and
description, rules per version (at creation, by adding, in a PLS file), the lengths of a
grapheme, an alias and a phoneme, the PLS file's size, rule strings to remove, and
dictionaries per account and environment."""

from __future__ import annotations

from typing import Any

import pytest
from fastapi.testclient import TestClient

from soundstage.core.db import Database
from tests.support.api import assert_error
from tests.support.factories import Customer, create_customer
from tests.support.pronunciation import (
    DICTIONARIES,
    alias_rule,
    create,
    lexicon,
    phoneme_rule,
    upload,
    version,
)

pytestmark = pytest.mark.services

MAX_RULES = 1_000
MAX_PLS_BYTES = 1_000_000


def post(client: TestClient, customer: Customer, body: dict[str, Any]) -> Any:
    return client.post(DICTIONARIES, json=body, headers=customer.auth())


def many(count: int, start: int = 0) -> list[dict[str, Any]]:
    return [alias_rule(f"w{i}", f"word {i}") for i in range(start, start + count)]


@pytest.mark.parametrize(
    ("field", "inside", "outside"),
    [("name", "n" * 100, "n" * 101), ("description", "d" * 500, "d" * 501)],
)
def test_name_and_description(
    client: TestClient, customer: Customer, field: str, inside: str, outside: str
) -> None:
    body = {"name": "x", "rules": many(1)}
    assert post(client, customer, {**body, field: inside}).status_code == 200
    error = assert_error(post(client, customer, {**body, field: outside}), 422, "parameter_invalid")
    assert error["param"] == field
    empty = post(client, customer, {**body, "name": " "})
    assert assert_error(empty, 422, "parameter_invalid")["param"] == "name"
    assert post(client, customer, {**body, "description": None}).status_code == 200
    control = post(client, customer, {**body, field: "a\u0007b"})
    assert assert_error(control, 422, "parameter_invalid")["param"] == field


def test_rules_per_version_at_creation(client: TestClient, customer: Customer) -> None:
    created = create(client, customer, many(MAX_RULES))
    rules = version(client, customer, created["id"], created["latest_version_id"])["rules"]
    assert len(rules) == MAX_RULES
    over = post(client, customer, {"name": "x", "rules": many(MAX_RULES + 1)})
    assert assert_error(over, 422, "parameter_invalid")["param"] == "rules"
    none = post(client, customer, {"name": "x", "rules": []})
    assert assert_error(none, 422, "parameter_invalid")["param"] == "rules"


def test_rules_per_version_by_adding(client: TestClient, customer: Customer) -> None:
    created = create(client, customer, many(MAX_RULES - 1))
    path = f"{DICTIONARIES}/{created['id']}/rules"
    # Replacing an existing rule does not count twice.
    replace_and_add = {"rules": [alias_rule("w0", "zero"), alias_rule("last", "one more")]}
    reached = client.post(path, json=replace_and_add, headers=customer.auth())
    assert reached.status_code == 200, reached.text
    assert reached.json()["version_count"] == 2
    over = client.post(path, json={"rules": [alias_rule("extra", "x")]}, headers=customer.auth())
    error = assert_error(over, 422, "too_many_pronunciation_rules")
    assert error["param"] == "rules"
    got = client.get(f"{DICTIONARIES}/{created['id']}", headers=customer.auth()).json()
    assert got["version_count"] == 2


def test_rules_per_pls_file(client: TestClient, customer: Customer) -> None:
    lexemes = [([f"w{i}"], "alias", f"word {i}") for i in range(MAX_RULES)]
    assert upload(client, customer, lexicon(lexemes)).status_code == 200
    over = [*lexemes[:-1], (["w999", "w1000"], "alias", "both")]  # 1,001 graphemes
    error = assert_error(
        upload(client, customer, lexicon(over)), 422, "too_many_pronunciation_rules"
    )
    assert error["param"] == "file"
    assert "line " in error["message"]


@pytest.mark.parametrize(
    ("rule", "outside", "param"),
    [
        (alias_rule("g" * 100, "x"), alias_rule("g" * 101, "x"), "string_to_replace"),
        (alias_rule("g", "a" * 200), alias_rule("g", "a" * 201), "alias"),
        (phoneme_rule("g", "ə" * 200), phoneme_rule("g", "ə" * 201), "phoneme"),
        # X-SAMPA is bounded once in IPA: 100 "t_h" are 300 characters, 200 in IPA (tʰ).
        (
            phoneme_rule("g", "t_h" * 100, alphabet="x-sampa"),
            phoneme_rule("g", "t_h" * 100 + "@", alphabet="x-sampa"),
            "phoneme",
        ),
        # and as sent: at most 400 characters.
        (
            phoneme_rule("g", "@" * 200, alphabet="x-sampa"),
            phoneme_rule("g", "-" * 399 + "@" * 2, alphabet="x-sampa"),
            "phoneme",
        ),
    ],
)
def test_rule_lengths(
    client: TestClient,
    customer: Customer,
    rule: dict[str, Any],
    outside: dict[str, Any],
    param: str,
) -> None:
    assert post(client, customer, {"name": "x", "rules": [rule]}).status_code == 200
    error = assert_error(post(client, customer, {"name": "x", "rules": [outside]}), 422,
                         "parameter_invalid")  # fmt: skip
    assert error["param"] == f"rules[0].{param}"


def test_pls_file_size(client: TestClient, customer: Customer) -> None:
    base = lexicon([(["Soundstage"], "phoneme", "ˈsaʊndˌsteɪdʒ")])
    filler = "<!--" + "x" * (MAX_PLS_BYTES - len(base) - 7) + "-->"
    inside = lexicon([(["Soundstage"], "phoneme", "ˈsaʊndˌsteɪdʒ")], padding=filler)
    assert len(inside) == MAX_PLS_BYTES
    response = upload(client, customer, inside)
    assert response.status_code == 200, response.text
    outside = lexicon([(["Soundstage"], "phoneme", "ˈsaʊndˌsteɪdʒ")], padding=filler + " ")
    assert len(outside) == MAX_PLS_BYTES + 1
    error = assert_error(upload(client, customer, outside), 413, "request_too_large")
    assert error["param"] == "file"


def test_rule_strings_to_remove(client: TestClient, customer: Customer) -> None:
    created = create(client, customer, many(MAX_RULES))
    path = f"{DICTIONARIES}/{created['id']}/rules/remove"
    every = [f"w{i}" for i in range(MAX_RULES)]
    assert (
        client.post(path, json={"rule_strings": every}, headers=customer.auth()).status_code == 200
    )
    over = client.post(path, json={"rule_strings": [*every, "w0"]}, headers=customer.auth())
    assert assert_error(over, 422, "parameter_invalid")["param"] == "rule_strings"
    none = client.post(path, json={"rule_strings": []}, headers=customer.auth())
    assert assert_error(none, 422, "parameter_invalid")["param"] == "rule_strings"


def test_dictionaries_per_account_and_environment(client: TestClient, db: Database) -> None:
    customer = create_customer(db)
    made = [create(client, customer, many(1), name=f"D{i}")["id"] for i in range(100)]
    assert len(made) == 100
    over = post(client, customer, {"name": "one too many", "rules": many(1)})
    assert_error(over, 422, "too_many_pronunciation_dictionaries")
    pls_over = upload(client, customer, lexicon([(["a"], "alias", "b")]))
    assert_error(pls_over, 422, "too_many_pronunciation_dictionaries")
    # The other environment has its own 100; deleting one frees a place.
    create(client, customer, many(1), environment="production")
    assert client.delete(f"{DICTIONARIES}/{made[0]}", headers=customer.auth()).status_code == 200
    create(client, customer, many(1), name="in the freed place")
