"""What the realtime tests share: a session's job and the account's wallets read back, and
raw 16-bit PCM received turned back into audio."""

from __future__ import annotations

import numpy as np

from soundstage.core.db import Database
from soundstage.media.audio import Audio
from soundstage.models import Job
from tests.support.credits import wallet_sums
from tests.support.factories import Customer


def job_of(db: Database, job_id: str) -> Job:
    with db.session() as session:
        job = session.get(Job, job_id)
        assert job is not None
        session.expunge(job)
        return job


def wallets(db: Database, customer: Customer) -> dict[str, int]:
    sums = wallet_sums(db, customer.account_id, "sandbox")
    return {wallet: sums.get(wallet, 0) for wallet in ("available", "reserved", "consumed")}


def pcm_audio(data: bytes, sample_rate: int) -> Audio:
    """Raw signed 16-bit little-endian mono, as the pcm_* formats send it."""
    samples = np.frombuffer(data, dtype="<i2").astype(np.float32) / 32768.0
    return Audio(np.ascontiguousarray(samples.reshape(-1, 1)), sample_rate)
