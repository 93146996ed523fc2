"""api_key.name: an optional label for keys made through POST /api/v1/keys

Revision ID: 3b8d5e1c7a90
Revises: 99f93f79331f
Create Date: 2026-11-24 14:10:00
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = '3b8d5e1c7a90'
down_revision: str | None = '99f93f79331f'
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    with op.batch_alter_table('api_key', schema=None) as batch_op:
        batch_op.add_column(sa.Column('name', sa.String(length=100), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table('api_key', schema=None) as batch_op:
        batch_op.drop_column('name')
