"""idempotency_record: the holder's lease (owner, lease_expires_at) and the job it created

Revision ID: 5c1e7a9d3f20
Revises: 7c4e2a9d1f63
Create Date: 2026-11-23 11:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import soundstage.core.timeutil

revision: str = "5c1e7a9d3f20"
down_revision: str | None = "7c4e2a9d1f63"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Records in flight before this revision have no lease: their requests are taken over.
    op.add_column("idempotency_record", sa.Column("owner", sa.String(length=32), nullable=True))
    op.add_column(
        "idempotency_record",
        sa.Column(
            "lease_expires_at", soundstage.core.timeutil.UTCDateTime(timezone=True), nullable=True
        ),
    )
    op.add_column("idempotency_record", sa.Column("job_id", sa.String(length=40), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("idempotency_record") as batch_op:
        batch_op.drop_column("job_id")
        batch_op.drop_column("lease_expires_at")
        batch_op.drop_column("owner")
