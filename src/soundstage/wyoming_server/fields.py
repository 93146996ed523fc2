"""An event's fields read into the services' request models, a field they refuse answered
as the HTTP API answers it (422 naming the field)."""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from soundstage.core.errors import InvalidField

ModelT = TypeVar("ModelT", bound=BaseModel)


def validated(model: type[ModelT], fields: dict[str, Any]) -> ModelT:
    """`model` made of `fields`; InvalidField naming the first field refused."""
    try:
        return model.model_validate(fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        param = ".".join(str(part) for part in first["loc"]) or None
        raise InvalidField(f"{param}: {first['msg']}.", param=param) from exc
