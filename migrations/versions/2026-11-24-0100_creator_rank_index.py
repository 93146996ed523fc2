"""creator: index of talent search's order without text (verified, rating, id)

Search by criteria alone ranks verified creators first, then by rating (unrated last), then by
id: this index walks that order, so a page reads its rows instead of sorting every match.
`NULLS LAST` is PostgreSQL's to say (SQLite puts NULLs last in a descending order anyway and
refuses the clause in an index), so the index is written per dialect and named in
`models.base.UNMANAGED_NAMES`.

Revision ID: 7c4e2a9f1b3d
Revises: e621232761b1
Create Date: 2026-11-24 01:00:00.000000
"""

from collections.abc import Sequence

from alembic import op

revision: str = "7c4e2a9f1b3d"
down_revision: str | None = "e621232761b1"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

RANK_ORDER = {
    "sqlite": "verified DESC, rating DESC, id",
    "postgresql": "verified DESC, rating DESC NULLS LAST, id",
}


def upgrade() -> None:
    order = RANK_ORDER[op.get_bind().dialect.name]
    op.execute(f"CREATE INDEX ix_creator_rank ON creator ({order})")


def downgrade() -> None:
    op.execute("DROP INDEX IF EXISTS ix_creator_rank")
