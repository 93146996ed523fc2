"""pronunciation dictionaries: a dictionary per row, its immutable versions (rules as JSON)

Revision ID: d62db95a0299
Revises: 3b8d5e1c7a90
Create Date: 2026-11-24 19:47:20.100221
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import soundstage.core.timeutil

revision: str = "d62db95a0299"
down_revision: str | None = "3b8d5e1c7a90"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "pronunciation_dictionary",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("name", sa.String(length=100), nullable=False),
        sa.Column("description", sa.String(length=500), nullable=True),
        sa.Column("language", sa.String(length=35), nullable=True),
        sa.Column("latest_version_id", sa.String(length=40), nullable=False),
        sa.Column("version_count", sa.Integer(), nullable=False),
        sa.Column("slot", sa.Integer(), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=16), nullable=False),
        sa.Column(
            "created_at", soundstage.core.timeutil.UTCDateTime(timezone=True), nullable=False
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pronunciation_dictionary")),
    )
    with op.batch_alter_table("pronunciation_dictionary", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_pronunciation_dictionary_account_id"), ["account_id"], unique=False
        )
        batch_op.create_index(
            "ix_pronunciation_dictionary_owner_created",
            ["account_id", "environment", "created_at"],
            unique=False,
        )
        batch_op.create_index(
            "uq_pronunciation_dictionary_owner_slot",
            ["account_id", "environment", "slot"],
            unique=True,
        )

    op.create_table(
        "pronunciation_dictionary_version",
        sa.Column("id", sa.String(length=40), nullable=False),
        sa.Column("dictionary_id", sa.String(length=40), nullable=False),
        sa.Column("version_number", sa.Integer(), nullable=False),
        sa.Column("rules", sa.JSON(), nullable=False),
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=16), nullable=False),
        sa.Column(
            "created_at", soundstage.core.timeutil.UTCDateTime(timezone=True), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["dictionary_id"],
            ["pronunciation_dictionary.id"],
            name=op.f("fk_pronunciation_dictionary_version_dictionary_id_pronunciation_dictionary"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("pk_pronunciation_dictionary_version")),
    )
    with op.batch_alter_table("pronunciation_dictionary_version", schema=None) as batch_op:
        batch_op.create_index(
            batch_op.f("ix_pronunciation_dictionary_version_account_id"),
            ["account_id"],
            unique=False,
        )
        batch_op.create_index(
            "uq_pronunciation_dictionary_version_number",
            ["dictionary_id", "version_number"],
            unique=True,
        )


def downgrade() -> None:
    with op.batch_alter_table("pronunciation_dictionary_version", schema=None) as batch_op:
        batch_op.drop_index("uq_pronunciation_dictionary_version_number")
        batch_op.drop_index(batch_op.f("ix_pronunciation_dictionary_version_account_id"))

    op.drop_table("pronunciation_dictionary_version")
    with op.batch_alter_table("pronunciation_dictionary", schema=None) as batch_op:
        batch_op.drop_index("uq_pronunciation_dictionary_owner_slot")
        batch_op.drop_index("ix_pronunciation_dictionary_owner_created")
        batch_op.drop_index(batch_op.f("ix_pronunciation_dictionary_account_id"))

    op.drop_table("pronunciation_dictionary")
