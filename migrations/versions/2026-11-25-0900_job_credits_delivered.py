"""job.credits_delivered: what a running job has handed over costs (a stream's audio sent),
charged however the job ends

Revision ID: 5c2f8a1d9e47
Revises: d62db95a0299
Create Date: 2026-11-25 09:00:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '5c2f8a1d9e47'
down_revision: str | None = 'd62db95a0299'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('job', schema=None) as batch_op:
        batch_op.add_column(
            sa.Column('credits_delivered', sa.BigInteger(), server_default='0', nullable=False)
        )


def downgrade() -> None:
    with op.batch_alter_table('job', schema=None) as batch_op:
        batch_op.drop_column('credits_delivered')
