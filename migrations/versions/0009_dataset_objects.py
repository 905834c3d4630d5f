"""Dataset tables may live in an object store: storage and storage_key, data nullable (issue 19)

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    # Existing rows keep their bytes in `data` (storage NULL); `python -m app.admin datasets
    # migrate-storage` moves them into the store.
    with op.batch_alter_table("datasets") as batch:
        batch.add_column(sa.Column("storage", sa.String(16), nullable=True))
        batch.add_column(sa.Column("storage_key", sa.String(512), nullable=True))
        batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=True)


def downgrade() -> None:
    # A dataset whose bytes are only in a store cannot go back into a NOT NULL column: refuse
    # rather than lose it (move them back first, or delete them).
    in_store = op.get_bind().execute(sa.text("SELECT count(*) FROM datasets WHERE data IS NULL")).scalar()
    if in_store:
        raise RuntimeError(
            f"{in_store} dataset(s) live only in the object store; cannot downgrade below 0009"
        )
    with op.batch_alter_table("datasets") as batch:
        batch.alter_column("data", existing_type=sa.LargeBinary(), nullable=False)
        batch.drop_column("storage_key")
        batch.drop_column("storage")
