"""datasets, jobs and job_results

Revision ID: 0001
Revises:
Create Date: 2025-11-26
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")


def upgrade() -> None:
    op.create_table(
        "datasets",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("sha256", sa.String(64), nullable=False),
        sa.Column("n_rows", sa.Integer(), nullable=False),
        sa.Column("feature_names", JSON, nullable=False),
        sa.Column("target", sa.String(255), nullable=False),
        sa.Column("environments", JSON, nullable=False),
        sa.Column("size_bytes", sa.BigInteger(), nullable=False),
        sa.Column("data", sa.LargeBinary(), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("sha256", name="uq_datasets_sha256"),
    )
    op.create_table(
        "jobs",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column(
            "dataset_id",
            sa.String(36),
            sa.ForeignKey("datasets.id", name="fk_jobs_dataset_id", ondelete="SET NULL"),
            nullable=True,
        ),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("algorithm", sa.String(64), nullable=False),
        sa.Column("task", sa.String(32), nullable=False),
        sa.Column("params", JSON, nullable=False),
        sa.Column("model", JSON, nullable=False),
        sa.Column("seed", sa.BigInteger(), nullable=False),
        sa.Column("device", sa.String(16), nullable=False),
        sa.Column("queue", sa.String(64), nullable=False),
        sa.Column("train_environments", JSON, nullable=False),
        sa.Column("test_environments", JSON, nullable=False),
        sa.Column("progress_step", sa.Integer(), nullable=False),
        sa.Column("progress_total", sa.Integer(), nullable=True),
        sa.Column("error", JSON, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
    )
    op.create_index("ix_jobs_created_at_id", "jobs", ["created_at", "id"])
    op.create_index("ix_jobs_dataset_id", "jobs", ["dataset_id"])
    op.create_index("ix_jobs_status", "jobs", ["status"])
    op.create_index("ix_jobs_algorithm", "jobs", ["algorithm"])
    op.create_table(
        "job_results",
        sa.Column(
            "job_id",
            sa.String(36),
            sa.ForeignKey("jobs.id", name="fk_job_results_job_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("result", JSON, nullable=False),
        sa.Column("weights", sa.LargeBinary(), nullable=False),
        sa.Column("weights_sha256", sa.String(64), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )


def downgrade() -> None:
    op.drop_table("job_results")
    op.drop_index("ix_jobs_algorithm", table_name="jobs")
    op.drop_index("ix_jobs_status", table_name="jobs")
    op.drop_index("ix_jobs_dataset_id", table_name="jobs")
    op.drop_index("ix_jobs_created_at_id", table_name="jobs")
    op.drop_table("jobs")
    op.drop_table("datasets")
