"""media_object: expires_at and deleted_at (retention); storage_usage (per-account quota)

Existing media get the default retention (30 days from their creation) and their owners'
usage counters the bytes they hold.

Revision ID: 7c4e2a9d1f63
Revises: b3d9f1a7c2e4
Create Date: 2026-11-23 10:00:00.000000
"""

from collections.abc import Sequence
from datetime import timedelta

import sqlalchemy as sa
from alembic import op

import soundstage.core.timeutil

revision: str = "7c4e2a9d1f63"
down_revision: str | None = "b3d9f1a7c2e4"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_RETENTION = timedelta(days=30)


def upgrade() -> None:
    op.create_table(
        "storage_usage",
        sa.Column("account_id", sa.String(length=40), nullable=False),
        sa.Column("environment", sa.String(length=16), nullable=False),
        sa.Column("used_bytes", sa.BigInteger(), nullable=False),
        sa.CheckConstraint("used_bytes >= 0", name=op.f("ck_storage_usage_used_not_negative")),
        sa.ForeignKeyConstraint(
            ["account_id"], ["account.id"], name=op.f("fk_storage_usage_account_id_account")
        ),
        sa.PrimaryKeyConstraint("account_id", "environment", name=op.f("pk_storage_usage")),
    )
    with op.batch_alter_table("media_object", schema=None) as batch_op:
        batch_op.add_column(
            sa.Column(
                "expires_at", soundstage.core.timeutil.UTCDateTime(timezone=True), nullable=True
            )
        )
        batch_op.add_column(
            sa.Column(
                "deleted_at", soundstage.core.timeutil.UTCDateTime(timezone=True), nullable=True
            )
        )
    _backfill()
    with op.batch_alter_table("media_object", schema=None) as batch_op:
        batch_op.alter_column(
            "expires_at",
            existing_type=soundstage.core.timeutil.UTCDateTime(timezone=True),
            nullable=False,
        )
        batch_op.create_index(
            "ix_media_object_live_expiry", ["deleted_at", "expires_at"], unique=False
        )


def _backfill() -> None:
    """Date arithmetic differs between SQLite and PostgreSQL: done here, row by row."""
    bind = op.get_bind()
    media = sa.table(
        "media_object",
        sa.column("id", sa.String()),
        sa.column("account_id", sa.String()),
        sa.column("environment", sa.String()),
        sa.column("size_bytes", sa.BigInteger()),
        sa.column("created_at", soundstage.core.timeutil.UTCDateTime()),
        sa.column("expires_at", soundstage.core.timeutil.UTCDateTime()),
    )
    usage = sa.table(
        "storage_usage",
        sa.column("account_id", sa.String()),
        sa.column("environment", sa.String()),
        sa.column("used_bytes", sa.BigInteger()),
    )
    for media_id, created_at in bind.execute(sa.select(media.c.id, media.c.created_at)).all():
        bind.execute(
            media.update()
            .where(media.c.id == media_id)
            .values(expires_at=created_at + _RETENTION)
        )
    totals = bind.execute(
        sa.select(media.c.account_id, media.c.environment, sa.func.sum(media.c.size_bytes))
        .group_by(media.c.account_id, media.c.environment)
    ).all()
    for account_id, environment, total in totals:
        bind.execute(
            usage.insert().values(
                account_id=account_id, environment=environment, used_bytes=int(total or 0)
            )
        )


def downgrade() -> None:
    with op.batch_alter_table("media_object", schema=None) as batch_op:
        batch_op.drop_index("ix_media_object_live_expiry")
        batch_op.drop_column("deleted_at")
        batch_op.drop_column("expires_at")
    op.drop_table("storage_usage")
