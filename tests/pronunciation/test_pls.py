"""PLS files: upload (IPA and X-SAMPA lexicons), download and upload again for the same
rules, malformed files refused with their line and column, and no DTD, entity or external
reference ever read (XXE, billion laughs)."""

from __future__ import annotations

import pytest
from fastapi.testclient import TestClient

from tests.support.api import assert_error
from tests.support.factories import Customer
from tests.support.pronunciation import (
    DICTIONARIES,
    PLS_NS,
    alias_rule,
    create,
    lexicon,
    phoneme_rule,
    upload,
    version,
)

pytestmark = pytest.mark.services


def test_an_ipa_lexicon_becomes_rules(client: TestClient, customer: Customer) -> None:
    data = lexicon(
        [
            (["Soundstage", "SoundStage"], "phoneme", "ˈsaʊndˌsteɪdʒ"),
            (["W3C"], "alias", "World Wide Web Consortium"),
        ],
        language="en-GB",
    )
    response = upload(client, customer, data, name="Lexicon")
    assert response.status_code == 200, response.text
    created = response.json()
    assert (created["name"], created["language"], created["version_count"]) == (
        "Lexicon",
        "en-GB",
        1,
    )
    rules = version(client, customer, created["id"], created["latest_version_id"])["rules"]
    assert rules == [
        {
            "type": "phoneme",
            "string_to_replace": "Soundstage",
            "phoneme": "ˈsaʊndˌsteɪdʒ",
            "alphabet": "ipa",
            "case_sensitive": True,
        },
        {
            "type": "phoneme",
            "string_to_replace": "SoundStage",
            "phoneme": "ˈsaʊndˌsteɪdʒ",
            "alphabet": "ipa",
            "case_sensitive": True,
        },
        {
            "type": "alias",
            "string_to_replace": "W3C",
            "alias": "World Wide Web Consortium",
            "case_sensitive": True,
        },
    ]


def test_an_x_sampa_lexicon_is_converted(client: TestClient, customer: Customer) -> None:
    data = f"""<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="{PLS_NS}" alphabet="x-sampa" xml:lang="en-US">
  <metadata><title>ignored</title></metadata>
  <lexeme>
    <grapheme>tomato</grapheme>
    <phoneme>t@"meItoU</phoneme>
    <phoneme prefer="true">t@"mA:t@U</phoneme>
    <example>I say tomato</example>
  </lexeme>
  <lexeme>
    <grapheme>Nguyen</grapheme>
    <phoneme alphabet="ipa">ŋwiən</phoneme>
  </lexeme>
</lexicon>""".encode()
    response = upload(client, customer, data)
    assert response.status_code == 200, response.text
    created = response.json()
    rules = version(client, customer, created["id"], created["latest_version_id"])["rules"]
    assert [(r["string_to_replace"], r["phoneme"]) for r in rules] == [
        ("tomato", "təˈmɑːtəʊ"),  # the preferred pronunciation
        ("Nguyen", "ŋwiən"),  # the phoneme's own alphabet
    ]


def test_download_then_upload_gives_the_same_rules(client: TestClient, customer: Customer) -> None:
    rules = [
        phoneme_rule("Soundstage", "ˈsaʊndˌsteɪdʒ"),
        alias_rule("R&D", "research and development <internal>", case_sensitive=False),
        phoneme_rule("tomato", 't@"mA:t@U', alphabet="x-sampa"),
        alias_rule("ß", "Eszett"),
    ]
    created = create(client, customer, rules, language="de-DE")
    dictionary_id, version_id = created["id"], created["latest_version_id"]
    original = version(client, customer, dictionary_id, version_id)["rules"]

    downloaded = client.get(
        f"{DICTIONARIES}/{dictionary_id}/versions/{version_id}/pls", headers=customer.auth()
    )
    assert downloaded.status_code == 200
    assert downloaded.headers["content-type"].startswith("application/pls+xml")
    assert downloaded.headers["content-disposition"].endswith('.pls"')
    assert downloaded.content.startswith(b'<?xml version="1.0" encoding="UTF-8"?>')
    assert b'alphabet="ipa"' in downloaded.content
    assert b'xml:lang="de-DE"' in downloaded.content

    again = upload(client, customer, downloaded.content, name="Round trip")
    assert again.status_code == 200, again.text
    copy = again.json()
    assert copy["language"] == "de-DE"
    assert version(client, customer, copy["id"], copy["latest_version_id"])["rules"] == original


def test_a_dictionary_without_a_language_stays_without(
    client: TestClient, customer: Customer
) -> None:
    created = create(client, customer, [alias_rule("a", "b")])
    assert created["language"] is None
    path = f"{DICTIONARIES}/{created['id']}/versions/{created['latest_version_id']}/pls"
    downloaded = client.get(path, headers=customer.auth())
    assert b'xml:lang="und"' in downloaded.content  # PLS requires one: "undetermined"
    again = upload(client, customer, downloaded.content)
    assert again.status_code == 200, again.text
    assert again.json()["language"] is None


@pytest.mark.parametrize(
    ("data", "line", "column", "says"),
    [
        (b'<lexicon alphabet="ipa">\n  <lexeme>\n    <grapheme>a</grapheme\n', 3, 16, "XML"),
        (b"", 1, 1, "XML"),
        (b"not xml at all", 1, 1, "XML"),
        (b'<lexicon alphabet="ipa">\n<lexeme><grapheme>a</grapheme></lexeme></lexicon>', 2, 1,
         "no <phoneme> or <alias>"),
        (b'<lexicon alphabet="ipa">\n<lexeme>\n  <phoneme>a</phoneme></lexeme></lexicon>', 2, 1,
         "no <grapheme>"),
        (b'<lexicon alphabet="ipa">\n<lexeme><grapheme>a</grapheme>\n  <phoneme>A1</phoneme>'
         b"</lexeme></lexicon>", 3, 3, "IPA symbol"),
        (b'<lexicon alphabet="arpabet">\n</lexicon>', 1, 1, "arpabet"),
        (b"<lexicon>\n</lexicon>", 1, 1, "alphabet"),
        (b'<lexicon alphabet="ipa" xml:lang="en US"/>', 1, 1, "xml:lang"),
        (b'<lexicon alphabet="ipa">\n  <entry/>\n</lexicon>', 2, 3, "<entry>"),
        (b'<lexicon alphabet="ipa">\n<lexeme><grapheme>a</grapheme><alias>b</alias></lexeme>\n'
         b"<lexeme>\n  <grapheme>a</grapheme><alias>c</alias></lexeme></lexicon>", 4, 3,
         "already"),
        (b'<lexicon alphabet="ipa">\n<lexeme><phoneme>a</phoneme>\n  <grapheme>b</grapheme>'
         b"</lexeme></lexicon>", 3, 3, "before"),
        (b'<speak alphabet="ipa"></speak>', 1, 1, "<lexicon>"),
        (b'<lexicon alphabet="ipa"></lexicon>', 1, 1, "no <lexeme>"),
    ],
)  # fmt: skip
def test_a_malformed_file_is_422_naming_the_place(
    client: TestClient, customer: Customer, data: bytes, line: int, column: int, says: str
) -> None:
    error = assert_error(upload(client, customer, data), 422, "pls_invalid")
    assert error["param"] == "file"
    if says != "no <lexeme>":
        assert f"line {line}, column {column}:" in error["message"], error["message"]
    assert says in error["message"]


@pytest.mark.parametrize("encoding", ["x-unknown", "utf-32", "shift_jis", "rot13", "idna"])
def test_an_encoding_it_cannot_read_is_422(
    client: TestClient, customer: Customer, encoding: str
) -> None:
    """Unknown names, non-text codecs and multi-byte encodings expat cannot take: each the
    usual 422 naming the file (a LookupError or ValueError escaped as a 500)."""
    data = lexicon([(["a"], "alias", "b")]).replace(b"UTF-8", encoding.encode(), 1)
    error = assert_error(upload(client, customer, data), 422, "pls_invalid")
    assert error["param"] == "file"
    assert error["message"].startswith("file: line 1, column 1: the XML declaration names an")
    assert "encoding" in error["message"]
    assert client.get(DICTIONARIES, headers=customer.auth()).json()["data"] == []


def test_a_single_byte_encoding_is_read(client: TestClient, customer: Customer) -> None:
    text = lexicon([(["Łódź"], "alias", "Woodge")]).decode().replace("UTF-8", "ISO-8859-2")
    created = upload(client, customer, text.encode("iso-8859-2"))
    assert created.status_code == 200, created.text
    rules = version(client, customer, created.json()["id"], created.json()["latest_version_id"])
    assert rules["rules"] == [alias_rule("Łódź", "Woodge", case_sensitive=True)]


XXE = b"""<?xml version="1.0"?>
<!DOCTYPE lexicon [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
<lexicon alphabet="ipa"><lexeme><grapheme>a</grapheme><alias>&secret;</alias></lexeme></lexicon>
"""
LAUGHS = b"""<?xml version="1.0"?>
<!DOCTYPE lexicon [
 <!ENTITY lol "lol">
 <!ENTITY lol1 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">
 <!ENTITY lol2 "&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;&lol1;">
 <!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">
]>
<lexicon alphabet="ipa"><lexeme><grapheme>a</grapheme><alias>&lol3;</alias></lexeme></lexicon>
"""
EXTERNAL_DTD = b"""<?xml version="1.0"?>
<!DOCTYPE lexicon SYSTEM "http://127.0.0.1:9/pls.dtd">
<lexicon alphabet="ipa"><lexeme><grapheme>a</grapheme><alias>b</alias></lexeme></lexicon>
"""


@pytest.mark.parametrize("data", [XXE, LAUGHS, EXTERNAL_DTD], ids=["xxe", "laughs", "dtd"])
def test_dtds_and_entities_are_refused(client: TestClient, customer: Customer, data: bytes) -> None:
    error = assert_error(upload(client, customer, data), 422, "pls_invalid")
    assert "line 2, column" in error["message"]
    assert "DTD" in error["message"]
    assert "root:" not in error["message"]  # nothing of /etc/passwd
    assert client.get(DICTIONARIES, headers=customer.auth()).json()["data"] == []


def test_the_form_is_checked(client: TestClient, customer: Customer) -> None:
    data = lexicon([(["a"], "alias", "b")])
    no_name = client.post(
        f"{DICTIONARIES}/from-file",
        files={"file": ("l.pls", data, "application/pls+xml")},
        headers=customer.auth(),
    )
    assert assert_error(no_name, 422, "parameter_missing")["param"] == "name"
    no_file = client.post(f"{DICTIONARIES}/from-file", data={"name": "x"}, headers=customer.auth())
    assert assert_error(no_file, 422, "parameter_missing")["param"] == "file"
    extra = client.post(
        f"{DICTIONARIES}/from-file",
        files={"file": ("l.pls", data, "application/pls+xml")},
        data={"name": "x", "alphabet": "ipa"},
        headers=customer.auth(),
    )
    assert assert_error(extra, 422, "parameter_unknown")["param"] == "alphabet"
