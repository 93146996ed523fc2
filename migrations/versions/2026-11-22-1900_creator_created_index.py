"""creator: index of discovery's order (created_at, id)

Revision ID: b3d9f1a7c2e4
Revises: e5a7c2d9b4f1
Create Date: 2026-11-22 19:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "b3d9f1a7c2e4"
down_revision: str | None = "e5a7c2d9b4f1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index("ix_creator_created", "creator", ["created_at", "id"], unique=False)


def downgrade() -> None:
    op.drop_index("ix_creator_created", table_name="creator")
