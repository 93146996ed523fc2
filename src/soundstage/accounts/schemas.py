"""Request and response bodies of the accounts feature."""

from __future__ import annotations

import re
import unicodedata
from typing import Literal

import pycountry
from pydantic import BaseModel, EmailStr, Field, field_validator

from soundstage.core.schemas import RequestModel
from soundstage.core.timeutil import Timestamp

VerificationStatus = Literal["unverified", "pending", "verified", "rejected"]
_TAX_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9 ./-]*$")


class BuyerVerificationSubmit(RequestModel):
    legal_name: str = Field(min_length=1, max_length=200, description="Registered business name.")
    country: str = Field(
        min_length=2, max_length=2, description="ISO 3166-1 alpha-2 country code, e.g. `GB`."
    )
    contact_email: EmailStr = Field(description="Where verification questions are sent.")
    tax_id: str | None = Field(
        default=None, min_length=1, max_length=64, description="VAT, EIN or similar (optional)."
    )

    @field_validator("legal_name")
    @classmethod
    def _printable_name(cls, value: str) -> str:
        # Control characters are never part of a name, and PostgreSQL cannot store NUL at all.
        if any(unicodedata.category(char) == "Cc" for char in value):
            raise ValueError("must not contain control characters")
        return value

    @field_validator("country")
    @classmethod
    def _known_country(cls, value: str) -> str:
        code = value.upper()
        if pycountry.countries.get(alpha_2=code) is None:
            raise ValueError("must be an ISO 3166-1 alpha-2 country code")
        return code

    @field_validator("tax_id")
    @classmethod
    def _tax_id_shape(cls, value: str | None) -> str | None:
        if value is not None and not _TAX_ID.match(value):
            raise ValueError("may hold letters, digits, spaces, '.', '/' and '-' only")
        return value


class BuyerVerificationOut(BaseModel):
    object: Literal["buyer_verification"] = "buyer_verification"
    environment: Literal["sandbox", "production"]
    status: VerificationStatus
    legal_name: str | None
    country: str | None
    contact_email: str | None
    tax_id: str | None
    submitted_at: Timestamp | None
    verified_at: Timestamp | None
    rejected_at: Timestamp | None
    updated_at: Timestamp | None


class ApiKeyCreate(RequestModel):
    name: str | None = Field(
        default=None,
        min_length=1,
        max_length=100,
        description='A label to tell the key apart, e.g. `"CI"` (optional).',
    )

    @field_validator("name")
    @classmethod
    def _printable_label(cls, value: str | None) -> str | None:
        if value is not None and any(unicodedata.category(char) == "Cc" for char in value):
            raise ValueError("must not contain control characters")
        return value


class ApiKeyOut(BaseModel):
    object: Literal["api_key"] = "api_key"
    id: str
    environment: Literal["sandbox", "production"]
    name: str | None
    preview: str = Field(
        description="The key's prefix and its first 4 secret characters, e.g. "
        "`sk_sandbox_Ab3d…`: enough to recognise it, never enough to use it."
    )
    status: Literal["active", "revoked"]
    created_at: Timestamp
    revoked_at: Timestamp | None
    current: bool = Field(
        description="Whether this is the key the request was made with (revoking it ends "
        "the caller's access with that key)."
    )


class ApiKeyCreated(ApiKeyOut):
    secret: str = Field(description="The key itself. Shown in this answer only: store it now.")
