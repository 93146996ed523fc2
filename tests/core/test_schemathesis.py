"""Property-based conformance of the whole API with its own OpenAPI document (Schemathesis).

Schemathesis' engine (what `schemathesis run` drives) calls every operation of the real app,
in-process over ASGI, with the sandbox key of a fresh customer on every request: boundary
cases of each parameter (coverage phase), generated valid and invalid requests (fuzzing) and
request chains (stateful). Every answer must be no 5xx, a documented status code with a
documented content type, a body that matches the documented schema, and documented headers
that match theirs.

The engine is used rather than `schemathesis.pytest.from_fixture`, whose lazy loader reads
`request.node._nodeid`, which pytest 9.2 no longer has.
"""

from __future__ import annotations

import os

import pytest
import schemathesis
from schemathesis import engine
from schemathesis.core.result import Ok
from schemathesis.engine import Status, StopReason, events
from schemathesis.engine.run import PhaseName

from soundstage.accounts import service as accounts
from soundstage.app import create_app
from soundstage.config import Settings
from soundstage.core.db import Database
from tests.support.factories import create_customer

pytestmark = pytest.mark.services

CHECKS = (
    "not_a_server_error",
    "status_code_conformance",
    "content_type_conformance",
    "response_headers_conformance",
    "response_schema_conformance",
)
# Per operation, in the fuzzing phase (the coverage phase's boundary cases come on top, all of
# them every run): 15 a run, a new seed each run, so that the generated requests differ from
# one CI run to the next and the whole suite keeps under its time budget. CI's second pass
# (PostgreSQL, Redis, S3) runs every operation and phase again with fewer: the generated
# inputs are the same kind, what changes is the database and the stores under them.
MAX_EXAMPLES = 15
MAX_EXAMPLES_ON_SERVICES = 6
# The coverage phase's boundary cases (half this test's time: 37 of 77 s here) are the same
# every run. In CI (`CI=true`, .ci/run) they are sent once, in the second pass, against
# PostgreSQL, which refuses more of them than SQLite does (a NUL in a string, an integer past
# 64 bits): the first pass fuzzes only. `make test` alone sends them against SQLite.
COVERAGE_IN_SECOND_PASS_ONLY = os.environ.get("CI") == "true"


def test_every_operation_conforms_to_the_openapi_document(settings: Settings, db: Database) -> None:
    # No worker runs here: synchronous jobs give up (504, documented) after a moment instead of
    # holding the request for the default 900 s.
    jobs = settings.jobs.model_copy(update={"sync_timeout_seconds": 0.3})
    app = create_app(settings.model_copy(update={"jobs": jobs}))
    customer = create_customer(db, credits_each=1000)
    key = customer.auth("sandbox")
    # The ids the API answers are reused as path parameters: pinned to a spare, a revocation
    # never reaches the key every request is sent with (a key may revoke itself, and all
    # that follows would be 401). tests/accounts/test_keys.py covers revocation itself.
    with db.session() as session:
        spare = accounts.create_key(session, (customer.account_id, "sandbox")).key.id
    on_services = not (settings.database_url or "sqlite").startswith("sqlite")
    examples = MAX_EXAMPLES_ON_SERVICES if on_services else MAX_EXAMPLES
    coverage = on_services or not COVERAGE_IN_SECOND_PASS_ONLY
    config = schemathesis.Config.from_dict(
        {
            "headers": key,  # sent on every request
            "parameters": {"key_id": spare},
            # The key above is the only credential: no generated (and so invalid) Authorization.
            "generation": {"max-examples": examples, "with-security-parameters": False},
            "phases": {"coverage": {"enabled": coverage}},
            "checks": {
                "enabled": False,
                **{name: {"enabled": True} for name in CHECKS},
                # A synchronous job past its limit is a documented 504 (job_timeout), and a
                # file only a worker renders (a voice preview, once another test module has
                # loaded the catalog) a documented 503 with Retry-After; any other 5xx is a bug.
                "not_a_server_error": {
                    "enabled": True,
                    "expected-statuses": ["2XX", "3XX", "4XX", "503", "504"],
                },
            },
        }
    )
    schema = schemathesis.openapi.from_asgi("/openapi.json", app, config=config)
    operations = set()
    for result in schema.get_all_operations():
        assert isinstance(result, Ok), result.err()
        operations.add(result.ok().label)

    failures: dict[tuple[str, ...], str] = {}
    tested: set[str] = set()
    checked: set[str] = set()
    unauthenticated: set[str] = set()
    finished: events.EngineFinished | None = None
    for event in engine.from_schema(schema).execute():
        if isinstance(event, events.ScenarioFinished):
            recorder = event.recorder
            generated = event.phase in (PhaseName.COVERAGE, PhaseName.FUZZING)
            if generated and event.status != Status.SKIP:
                tested.add(recorder.label)
            for interaction in recorder.interactions.values():
                if interaction.response is not None and interaction.response.status_code == 401:
                    unauthenticated.add(f"{interaction.request.method} {interaction.request.uri}")
            for nodes in recorder.checks.values():
                for node in nodes:
                    checked.add(node.name)
                    info = node.failure_info
                    if info is None:
                        continue
                    failure = info.failure
                    operation = failure.operation or recorder.label
                    failures.setdefault(
                        (operation, node.name, failure.title),
                        f"[{event.phase.value}] {operation}: {node.name}: {failure.title}\n"
                        f"{failure.message}\n{info.code_sample}",
                    )
        elif isinstance(event, events.NonFatalError):
            failures[("error", event.label, event.info.title)] = (
                f"[{event.phase}] {event.label}: {event.info.format()}"
            )
        elif isinstance(event, events.FatalError):
            raise event.exception
        elif isinstance(event, events.EngineFinished):
            finished = event

    if failures:
        pytest.fail(
            f"Schemathesis found {len(failures)} problem(s) (seed {schema.config.seed}):\n\n"
            + "\n\n".join(failures.values()),
            pytrace=False,
        )
    # No `max-time`: with one, the engine would keep fuzzing until the budget is spent.
    assert finished is not None
    assert finished.stop_reason == StopReason.COMPLETED, f"stopped early: {finished.stop_reason}"
    assert tested == operations, f"operations not tested: {sorted(operations - tested)}"
    assert checked == set(CHECKS), f"checks that never ran: {sorted(set(CHECKS) - checked)}"
    assert not unauthenticated, f"requests that went out without the key: {sorted(unauthenticated)}"
