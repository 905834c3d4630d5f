"""job placement: the device the API chose for a job and why (issue 9, one meaning of "auto")

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-28
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Nullable: jobs queued before this revision have no placement; their worker resolves the
    # requested device itself, as it did then.
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("device_chosen", sa.String(16), nullable=True))
        batch.add_column(sa.Column("device_reason", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_column("device_reason")
        batch.drop_column("device_chosen")
