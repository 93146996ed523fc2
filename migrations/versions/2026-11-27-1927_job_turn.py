"""job_turn: when each owner's job last started, for the workers' turns between accounts

Revision ID: 54cb8e38d8d8
Revises: 5c2f8a1d9e47
Create Date: 2026-11-27 19:27:56.682417
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import soundstage.core.timeutil

revision: str = "54cb8e38d8d8"
down_revision: str | None = "5c2f8a1d9e47"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "job_turn",
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=16), nullable=False),
        sa.Column(
            "served_at", soundstage.core.timeutil.UTCDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("account_id", "environment", name=op.f("pk_job_turn")),
    )


def downgrade() -> None:
    op.drop_table("job_turn")
