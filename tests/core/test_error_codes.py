"""The register of error codes: every code the service answers is declared by an AppError
subclass, the docs' table (docs/errors.md) is generated from it (`soundstage errors
--markdown`), and an AST scan of src/ finds no code the register lacks, so the table cannot
drift."""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys

import pytest
from fastapi.testclient import TestClient

from soundstage.core.errors import AppError
from soundstage.error_catalog import TABLE_END, TABLE_START, all_codes, markdown_table
from tests.support.factories import Customer
from tests.support.processes import REPO_ROOT

SRC = REPO_ROOT / "src"
ERRORS_PAGE = REPO_ROOT / "docs" / "errors.md"


def docs_table() -> str:
    text = ERRORS_PAGE.read_text()
    assert text.count(TABLE_START) == 1
    assert text.count(TABLE_END) == 1
    return text.split(TABLE_START)[1].split(TABLE_END)[0].strip("\n") + "\n"


def soundstage_errors(option: str) -> str:
    """What `soundstage errors <option>` prints, run as a user runs it."""
    return subprocess.run(
        [sys.executable, "-m", "soundstage.cli", "errors", option],
        capture_output=True,
        text=True,
        check=True,
    ).stdout


def test_the_docs_table_is_the_generated_one() -> None:
    printed = soundstage_errors("--markdown")
    assert printed == markdown_table()
    assert docs_table() == printed, (
        "docs/errors.md's error table is stale: paste `soundstage errors --markdown` between "
        f"{TABLE_START} and {TABLE_END}"
    )


def test_codes_are_unique_described_and_404s_are_resource_not_found() -> None:
    codes = all_codes()
    pairs = [(row.status, row.code) for row in codes]
    assert len(pairs) == len(set(pairs)), "a code is declared twice at one status"
    for row in codes:
        assert re.fullmatch(r"[a-z][a-z0-9_]*", row.code), row
        assert row.meaning, f"{row.declared_by} needs a docstring: it is the table's meaning"
        # One scheme for a missing object: `<resource>_not_found`, and only for 404s.
        assert (row.status == 404) == row.code.endswith("_not_found"), row
    # The unknown URL stays distinct from a missing object.
    assert (404, "route_not_found") in pairs
    # What FastAPI's validation and routing errors are answered with (app.py) is declared.
    for pair in [
        (400, "malformed_request"),
        (422, "parameter_invalid"),
        (422, "parameter_missing"),
        (422, "parameter_unknown"),
        (405, "method_not_allowed"),
    ]:
        assert pair in pairs, pair


def _abstract_error_names() -> set[str]:
    """AppError classes that declare no code (raising them is a bug)."""
    all_codes()
    found: set[str] = set()
    pending: list[type[AppError]] = [AppError]
    while pending:
        cls = pending.pop()
        if not cls.code:
            found.add(cls.__name__)
        pending.extend(cls.__subclasses__())
    return found


def test_no_code_in_src_is_missing_from_the_register() -> None:
    """Every string given as `code=` to a call, and every `code = "…"` of a class body, is
    a declared code; a `code=` that is not a literal may only be another error's `.code`
    (a stored job error replayed); an abstract error class is never called without one."""
    declared = {row.code for row in all_codes()}
    abstract = _abstract_error_names()
    assert {"AppError", "NotFound", "AuthenticationError"} <= abstract
    problems: list[str] = []
    for path in sorted(SRC.rglob("*.py")):
        tree = ast.parse(path.read_text(), filename=str(path))
        where = path.relative_to(REPO_ROOT)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                code = next((kw.value for kw in node.keywords if kw.arg == "code"), None)
                if isinstance(code, ast.Constant):
                    if code.value not in declared:
                        problems.append(f"{where}:{node.lineno}: code={code.value!r} undeclared")
                elif code is not None and not (
                    isinstance(code, ast.Attribute) and code.attr == "code"
                ):
                    problems.append(f"{where}:{node.lineno}: code= is not checkable")
                name = node.func.id if isinstance(node.func, ast.Name) else None
                if name in abstract and code is None:
                    problems.append(f"{where}:{node.lineno}: {name}() declares no code")
            elif isinstance(node, ast.ClassDef):
                for statement in node.body:
                    if (
                        isinstance(statement, ast.Assign)
                        and any(
                            isinstance(t, ast.Name) and t.id == "code" for t in statement.targets
                        )
                        and isinstance(statement.value, ast.Constant)
                        and statement.value.value
                        and statement.value.value not in declared
                    ):
                        problems.append(f"{where}:{statement.lineno}: {node.name} not registered")
    assert problems == []


@pytest.mark.services
def test_what_the_app_answers_is_in_the_register(client: TestClient, customer: Customer) -> None:
    """Routing, validation and typical feature errors, asked of the real app: each answer's
    (status, code) is a row of the table, and each 404 names the id in `param` and message."""
    pairs = {(row.status, row.code) for row in all_codes()}
    auth = customer.auth()
    answers = [
        client.get("/api/v1/nothing-here", headers=auth),
        client.delete("/api/v1/credits", headers=auth),
        client.post("/api/v1/sandbox/credits", headers=auth, json={"amount": "five"}),
        client.post("/api/v1/sandbox/credits", headers=auth, json={}),
        client.post("/api/v1/sandbox/credits", headers=auth, json={"amount": 5, "bonus": 1}),
        client.post(
            "/api/v1/sandbox/credits",
            headers={**auth, "Content-Type": "application/json"},
            content=b"{",
        ),
        client.get("/api/v1/credits/ledger?limit=0", headers=auth),
        client.get("/api/v1/credits"),
    ]
    missing = {
        "/api/v1/jobs/job_nope": ("job_not_found", "job_id"),
        "/api/v1/media/med_nope": ("media_not_found", "media_id"),
        "/api/v1/webhooks/endpoints/we_nope": ("webhook_endpoint_not_found", "endpoint_id"),
        "/api/v1/events/evt_nope": ("event_not_found", "event_id"),
        "/api/v1/credits/ledger/tx_nope": ("credit_transaction_not_found", "transaction_id"),
        "/api/v1/voices/voice_nope": ("voice_not_found", "voice_id"),
        "/api/v1/jobs?starting_after=job_nope": ("job_not_found", "starting_after"),
        "/api/v1/webhooks/endpoints?ending_before=we_nope": (
            "webhook_endpoint_not_found",
            "ending_before",
        ),
        "/api/v1/credits/ledger?starting_after=tx_nope": (
            "credit_transaction_not_found",
            "starting_after",
        ),
    }
    for path, (code, param) in missing.items():
        response = client.get(path, headers=auth)
        assert response.status_code == 404, (path, response.text)
        error = response.json()["error"]
        assert (error["code"], error["param"]) == (code, param), path
        assert "_nope" in error["message"], error
        answers.append(response)
    for response in answers:
        error = response.json()["error"]
        assert (response.status_code, error["code"]) in pairs, (response.status_code, error)


def test_the_cli_prints_json_too() -> None:
    rows = json.loads(soundstage_errors("--json"))
    assert [(r["status"], r["code"]) for r in rows] == [(c.status, c.code) for c in all_codes()]
