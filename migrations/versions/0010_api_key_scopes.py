"""API keys carry scopes and a name (issue 22: keys managed through the API)

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Existing keys keep NULL scopes: what they could do before (read and write, and operate where
    # their tenant is an operator tenant); app.auth.effective_scopes reads NULL so.
    with op.batch_alter_table("api_keys") as batch:
        batch.add_column(sa.Column("scopes", sa.String(64), nullable=True))
        batch.add_column(sa.Column("name", sa.String(255), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("api_keys") as batch:
        batch.drop_column("name")
        batch.drop_column("scopes")
