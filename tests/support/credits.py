"""The credit ledger as the database holds it."""

from __future__ import annotations

from sqlalchemy import func, select

from soundstage.core.db import Database
from soundstage.models import CreditEntry


def wallet_sums(db: Database, account_id: str, environment: str) -> dict[str, int]:
    """The sum of the ledger's entries per wallet."""
    with db.session() as session:
        rows = session.execute(
            select(CreditEntry.wallet, func.sum(CreditEntry.amount))
            .where(CreditEntry.account_id == account_id, CreditEntry.environment == environment)
            .group_by(CreditEntry.wallet)
        ).all()
    return {wallet: int(total) for wallet, total in rows}
