"""sweeps; jobs gain a validation split, a reproducibility record, rerun_of and sweep_id

Revision ID: 0003
Revises: 0002
Create Date: 2025-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "sweeps",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column(
            "tenant_id",
            sa.String(36),
            sa.ForeignKey("tenants.id", name="fk_sweeps_tenant_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column(
            "dataset_id",
            sa.String(36),
            sa.ForeignKey("datasets.id", name="fk_sweeps_dataset_id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("selection", sa.String(32), nullable=False),
        sa.Column("spec", JSON, nullable=False),
        sa.Column("n_jobs", sa.Integer(), nullable=False),
        sa.Column("leaderboard", JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_sweeps_tenant_id", "sweeps", ["tenant_id"])
    op.create_index("ix_sweeps_dataset_id", "sweeps", ["dataset_id"])
    op.create_index("ix_sweeps_created_at_id", "sweeps", ["created_at", "id"])
    # batch mode: SQLite cannot add a foreign key with ALTER TABLE
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(sa.Column("validation", JSON, nullable=True))
        batch.add_column(sa.Column("dataset_sha256", sa.String(64), nullable=True))
        batch.add_column(sa.Column("runtime", JSON, nullable=True))
        batch.add_column(sa.Column("rerun_of", sa.String(36), nullable=True))
        batch.add_column(sa.Column("sweep_id", sa.String(36), nullable=True))
        batch.create_foreign_key("fk_jobs_sweep_id", "sweeps", ["sweep_id"], ["id"], ondelete="CASCADE")
        batch.create_index("ix_jobs_sweep_id", ["sweep_id"])


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_index("ix_jobs_sweep_id")
        batch.drop_constraint("fk_jobs_sweep_id", type_="foreignkey")
        for column in ("sweep_id", "rerun_of", "runtime", "dataset_sha256", "validation"):
            batch.drop_column(column)
    op.drop_index("ix_sweeps_created_at_id", table_name="sweeps")
    op.drop_index("ix_sweeps_dataset_id", table_name="sweeps")
    op.drop_index("ix_sweeps_tenant_id", table_name="sweeps")
    op.drop_table("sweeps")
