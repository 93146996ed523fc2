"""The one Settings object: every knob of the service, read from SOUNDSTAGE_* variables."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, Field
from pydantic_settings import BaseSettings, SettingsConfigDict

Environment = Literal["sandbox", "production"]
ENVIRONMENTS: tuple[Environment, ...] = ("sandbox", "production")


class RateLimitSettings(BaseModel):
    """Per-API-key limits in the `limits` notation ("N/second|minute|hour")."""

    sandbox: str = "100/minute"
    production: str = "1000/minute"
    # Requests that carry no valid key (401 answers, /docs, /openapi.json) share a
    # bucket per client address, so they never touch a real key's quota.
    anonymous: str = "300/minute"


class Settings(BaseSettings):
    model_config = SettingsConfigDict(
        env_prefix="SOUNDSTAGE_", env_nested_delimiter="__", extra="ignore"
    )

    data_dir: Path = Path("./data")
    # SQLite file under data_dir when unset; e.g. postgresql+psycopg://user@host/db
    database_url: str | None = None
    # Shared rate limits (and, later, the job queue) go through Redis when set.
    redis_url: str | None = None
    # Prefix of every Redis key, so deployments (or test runs) can share one Redis.
    redis_namespace: str = "soundstage"
    public_base_url: str = "http://127.0.0.1:8000"
    rate_limits: RateLimitSettings = Field(default_factory=RateLimitSettings)
    max_request_bytes: int = 1_048_576
    idempotency_ttl_seconds: int = 24 * 3600
    # An in-flight idempotency lock older than this is taken over (its holder died).
    idempotency_lock_timeout_seconds: int = 3600

    @property
    def resolved_database_url(self) -> str:
        if self.database_url:
            return self.database_url
        return f"sqlite:///{(self.data_dir / 'soundstage.db').resolve()}"

    @property
    def is_sqlite(self) -> bool:
        return self.resolved_database_url.startswith("sqlite")


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()
