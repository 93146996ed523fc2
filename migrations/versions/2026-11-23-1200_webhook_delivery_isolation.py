"""webhook_delivery_isolation: endpoint slots (the cap per account and environment), the
in-flight lease of an endpoint (one request at a time), and the index of due deliveries per
endpoint

Revision ID: e621232761b1
Revises: 5c1e7a9d3f20
Create Date: 2026-11-23 12:00:00.000000
"""

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

import soundstage.core.timeutil

revision: str = "e621232761b1"
down_revision: str | None = "5c1e7a9d3f20"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Live endpoints that exist already take slots 0, 1, ... per owner in order of creation (an
# owner above the new cap keeps them all; it can create more once below the cap).
NUMBER_EXISTING_SLOTS = """
UPDATE webhook_endpoint SET slot = (
    SELECT count(*) FROM webhook_endpoint AS earlier
    WHERE earlier.account_id = webhook_endpoint.account_id
      AND earlier.environment = webhook_endpoint.environment
      AND earlier.deleted_at IS NULL
      AND (earlier.created_at < webhook_endpoint.created_at
           OR (earlier.created_at = webhook_endpoint.created_at
               AND earlier.id < webhook_endpoint.id))
)
WHERE deleted_at IS NULL
"""


def upgrade() -> None:
    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.create_index(
            "ix_webhook_delivery_endpoint_due",
            ["endpoint_id", "status", "next_attempt_at"],
            unique=False,
        )

    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.add_column(sa.Column("slot", sa.Integer(), nullable=True))
        batch_op.add_column(
            sa.Column(
                "in_flight_until",
                soundstage.core.timeutil.UTCDateTime(timezone=True),
                nullable=True,
            )
        )
        batch_op.add_column(sa.Column("in_flight_token", sa.String(length=32), nullable=True))

    op.execute(NUMBER_EXISTING_SLOTS)

    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.create_index(
            "uq_webhook_endpoint_owner_slot", ["account_id", "environment", "slot"], unique=True
        )


def downgrade() -> None:
    with op.batch_alter_table("webhook_endpoint", schema=None) as batch_op:
        batch_op.drop_index("uq_webhook_endpoint_owner_slot")
        batch_op.drop_column("in_flight_token")
        batch_op.drop_column("in_flight_until")
        batch_op.drop_column("slot")

    with op.batch_alter_table("webhook_delivery", schema=None) as batch_op:
        batch_op.drop_index("ix_webhook_delivery_endpoint_due")
