"""Who is calling: the account and environment an API key belongs to, and the request's hold
on its Idempotency-Key when it sent one."""

from __future__ import annotations

from dataclasses import dataclass, field

from soundstage.config import Environment


@dataclass
class IdempotencyClaim:
    """A running request's hold on its Idempotency-Key (soundstage.idempotency takes and
    releases it). The job system records on it the job the request creates (`bind_job`),
    and a retry of a request that died resumes that job (`take_resumed_job`). Mutable: one
    holder the request's threads share."""

    record_id: int
    owner: str
    # The job a request that died had created under this key, for its retry to resume.
    resumed_job_id: str | None = None
    job_bound: bool = False


@dataclass(frozen=True)
class Principal:
    account_id: str
    environment: Environment
    api_key_id: str
    # Set by the idempotency middleware for the one request that holds the key; never
    # compared: the same caller with or without a key is the same principal.
    claim: IdempotencyClaim | None = field(default=None, compare=False, repr=False)
