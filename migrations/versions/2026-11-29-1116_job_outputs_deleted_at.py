"""job.outputs_deleted_at: when its owner deleted the job's stored outputs (a generation
deleted from the history); the job, its charge and its ledger entries stay

Revision ID: 618508c1c767
Revises: 54cb8e38d8d8
Create Date: 2026-11-29 11:16:30.087031
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import soundstage.core.timeutil

revision: str = "618508c1c767"
down_revision: str | None = "54cb8e38d8d8"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "outputs_deleted_at",
                soundstage.core.timeutil.UTCDateTime(timezone=True),
                nullable=True,
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("job", schema=None) as batch_op:
        batch_op.drop_column("outputs_deleted_at")
