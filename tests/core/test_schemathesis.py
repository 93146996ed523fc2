"""Property-based conformance of the whole API with its own OpenAPI document (Schemathesis).

Every operation of the real app (in-process, over ASGI) is called with generated valid
(positive) and invalid (negative) requests, authenticated with the sandbox key of a fresh
customer. Every answer must be no 5xx, a documented status code with a documented content
type, a body that matches the documented schema, and documented headers that match theirs.

The operations are driven with Schemathesis' Hypothesis strategies (one subtest per
operation) rather than `schemathesis.pytest.from_fixture`, whose lazy loader reads
`request.node._nodeid`, which pytest 9.2 no longer has.
"""

from __future__ import annotations

import pytest
import schemathesis
from fastapi import FastAPI
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from soundstage.core.db import Database
from tests.conftest import create_customer

pytestmark = pytest.mark.services

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
MAX_EXAMPLES = 50  # per operation, about half valid and half invalid requests


def test_every_operation_conforms_to_the_openapi_document(
    app: FastAPI, db: Database, subtests: pytest.Subtests
) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    auth = create_customer(db, credits_each=1000).auth("sandbox")
    operations = [result.ok() for result in schema.get_all_operations()]
    assert len(operations) >= 8, [op.label for op in operations]

    for operation in operations:
        # Valid and invalid requests mixed, as Schemathesis' own runner draws them (an operation
        # without parameters, like /healthz, has no invalid request to draw).
        cases = st.one_of(
            operation.as_strategy(generation_mode=GenerationMode.POSITIVE),
            operation.as_strategy(generation_mode=GenerationMode.NEGATIVE),
        )

        @given(case=cases)
        @settings(
            max_examples=MAX_EXAMPLES,
            deadline=None,
            database=None,
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
        )
        def call_and_validate(case: schemathesis.Case) -> None:
            case.call_and_validate(headers=auth, checks=CHECKS)

        with subtests.test(operation=operation.label):
            call_and_validate()
