"""job names, tags and a description (issue 22: runs you can name and find)

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    # Existing jobs have no name or description and no tags ('[]' on every backend).
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("name", sa.String(255), nullable=True))
        batch.add_column(sa.Column("description", sa.Text(), nullable=True))
        batch.add_column(sa.Column("tags", JSON, nullable=False, server_default="[]"))
        batch.create_index("ix_jobs_name", ["name"])


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_index("ix_jobs_name")
        batch.drop_column("tags")
        batch.drop_column("description")
        batch.drop_column("name")
