"""outbox: job ids committed with their job, delivered to the broker by a relay

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "outbox",
        sa.Column(
            "job_id",
            sa.String(36),
            sa.ForeignKey("jobs.id", name="fk_outbox_job_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("queue", sa.String(64), nullable=False),
        sa.Column("priority", sa.Integer(), nullable=False, server_default="0"),
        sa.Column("attempts", sa.Integer(), nullable=False),
        sa.Column("next_attempt_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    op.create_index("ix_outbox_next_attempt_at", "outbox", ["next_attempt_at"])


def downgrade() -> None:
    op.drop_index("ix_outbox_next_attempt_at", table_name="outbox")
    op.drop_table("outbox")
