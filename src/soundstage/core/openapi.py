"""The OpenAPI document: every operation lists the error envelope for the statuses it can
answer, the headers every response carries, and Idempotency-Key on POSTs."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI
from fastapi.dependencies.models import Dependant
from fastapi.openapi.utils import get_openapi
from fastapi.routing import APIRoute, iter_route_contexts
from pydantic import BaseModel

from soundstage.core.deps import current_principal
from soundstage.core.errors import ErrorEnvelope

ERROR_DESCRIPTIONS = {
    400: "Malformed request (bad JSON)",
    401: "Missing, malformed, unknown or revoked API key; `WWW-Authenticate: Bearer` says which",
    402: "Insufficient credits",
    403: "Forbidden (e.g. buyer not verified, sandbox-only helper)",
    404: "Unknown object, or not the caller's",
    405: "Method not allowed",
    409: "Conflict (state, idempotency key in flight)",
    410: "Gone: the media passed their retention (`media_expired`)",
    413: "Request body too large, or past the account's storage quota",
    422: "Invalid field, named in `param`",
    429: "Rate limited; see Retry-After",
    500: "Internal error (a bug)",
    503: "A dependency is down; see Retry-After",
    504: "The job did not finish in time; it was cancelled and not charged",
}
COMMON_ERRORS = (400, 401, 404, 413, 422, 429, 500, 503)

_STRING = {"schema": {"type": "string"}}
RESPONSE_HEADERS = {
    "Request-Id": {"description": "Identifier of this request, also in error bodies.", **_STRING},
    "RateLimit": {"description": 'Remaining quota, e.g. `"account";r=99;t=42`.', **_STRING},
    "RateLimit-Policy": {"description": 'The quota, e.g. `"account";q=100;w=60`.', **_STRING},
}
RETRY_AFTER = {"Retry-After": {"description": "Seconds to wait.", "schema": {"type": "integer"}}}
WWW_AUTHENTICATE = {
    "WWW-Authenticate": {
        "description": 'RFC 6750 challenge: `Bearer realm="soundstage"` when no key was sent; '
        '`Bearer realm="soundstage", error="invalid_token", error_description="…"` when the '
        'key sent is malformed, unknown or revoked (`error="invalid_request"` for an empty '
        "`Bearer`).",
        **_STRING,
    }
}
# The native API's credential, on every operation that takes the caller (core.deps).
BEARER = "HTTPBearer"
BEARER_SCHEME = {
    "type": "http",
    "description": "Secret key: sk_sandbox_… or sk_live_…",
    "scheme": "bearer",
}
IDEMPOTENCY_PARAMETER = {
    "name": "Idempotency-Key",
    "in": "header",
    "required": False,
    "description": "Makes a retried POST safe: the first answer is replayed for 24 h.",
    "schema": {"type": "string", "minLength": 1, "maxLength": 255},
}


def errors(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """Endpoint-specific error statuses, for a route's `responses=`."""
    return {s: {"model": ErrorEnvelope, "description": ERROR_DESCRIPTIONS[s]} for s in statuses}


def install(app: FastAPI, error_envelopes: Mapping[str, type[BaseModel]] | None = None) -> None:
    """The app's OpenAPI document, its error responses in the native envelope, or under a
    path prefix of `error_envelopes` in that surface's own (the compatible APIs')."""
    envelopes = dict(error_envelopes or {})

    def build() -> dict[str, Any]:
        if app.openapi_schema:
            return app.openapi_schema
        schema = get_openapi(
            title=app.title, version=app.version, description=app.description, routes=app.routes
        )
        schemas = schema.setdefault("components", {}).setdefault("schemas", {})
        schemas.pop("HTTPValidationError", None)
        schemas.pop("ValidationError", None)
        error_ref = {"$ref": "#/components/schemas/ErrorEnvelope"}
        refs: dict[str, dict[str, str]] = {}
        for prefix, model in envelopes.items():
            defs = model.model_json_schema(ref_template="#/components/schemas/{model}")
            schemas.update(defs.pop("$defs", {}))
            schemas[model.__name__] = defs
            refs[prefix] = {"$ref": f"#/components/schemas/{model.__name__}"}
        for path, path_item in schema.get("paths", {}).items():
            ref = next(
                (r for prefix, r in refs.items() if path.startswith(prefix.rstrip("/") + "/")),
                error_ref,
            )
            for method, operation in path_item.items():
                _augment(method, operation, ref)
        _declare_bearer(schema, app)
        _drop_unreferenced(schemas, schema.get("paths", {}))
        app.openapi_schema = schema
        return schema

    app.openapi = build  # type: ignore[method-assign]


def _declare_bearer(schema: dict[str, Any], app: FastAPI) -> None:
    """Operations whose endpoint depends on the caller take the bearer key."""
    keyed = 0
    for context in iter_route_contexts(app.routes):
        route = context.original_route
        if isinstance(route, APIRoute) and _takes_caller(route.dependant):
            path_item = schema["paths"].get(context.path_format, {})
            for method in route.methods or ():
                operation = path_item.get(method.lower())
                if operation is not None:
                    operation["security"] = [{BEARER: []}]
                    keyed += 1
    if keyed:
        schemes = schema["components"].setdefault("securitySchemes", {})
        schemes[BEARER] = BEARER_SCHEME


def _takes_caller(dependant: Dependant) -> bool:
    return any(
        sub.call is current_principal or _takes_caller(sub) for sub in dependant.dependencies
    )


def _augment(method: str, operation: dict[str, Any], error_ref: dict[str, str]) -> None:
    responses = operation.setdefault("responses", {})
    for status in COMMON_ERRORS + ((409,) if method == "post" else ()):
        responses.setdefault(str(status), {"description": ERROR_DESCRIPTIONS[status]})
    for status, response in responses.items():
        if status.startswith(("4", "5")):
            response["content"] = {"application/json": {"schema": error_ref}}
            response["description"] = ERROR_DESCRIPTIONS.get(
                int(status), response.get("description", "")
            )
        headers = dict(RESPONSE_HEADERS)
        if status in ("429", "503"):
            headers.update(RETRY_AFTER)
        if status == "401":
            headers.update(WWW_AUTHENTICATE)
        response["headers"] = headers
    if method == "post":
        operation.setdefault("parameters", []).append(IDEMPOTENCY_PARAMETER)


def _drop_unreferenced(schemas: dict[str, Any], paths: dict[str, Any]) -> None:
    """Remove the components no operation reaches, directly or through other components (a
    model only ever shown in another form, such as a job's stored media reference shown as
    its signed URL, leaves its definition behind)."""
    prefix = "#/components/schemas/"
    reached: set[str] = set()
    pending = [paths]
    while pending:
        node = pending.pop()
        if isinstance(node, dict):
            ref = node.get("$ref")
            if isinstance(ref, str) and ref.startswith(prefix):
                name = ref.removeprefix(prefix)
                if name not in reached and name in schemas:
                    reached.add(name)
                    pending.append(schemas[name])
            pending.extend(node.values())
        elif isinstance(node, list):
            pending.extend(node)
    for name in set(schemas) - reached:
        del schemas[name]
