"""tenants and API keys, idempotency keys; datasets and jobs belong to a tenant; job leases and attempts

Revision ID: 0002
Revises: 0001
Create Date: 2025-11-27

The rows that exist before this migration are given to the default tenant (the one single-user
mode acts as). Datasets become content-addressed per tenant: (tenant_id, sha256) is unique.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

JSON = sa.JSON().with_variant(postgresql.JSONB(), "postgresql")
DEFAULT_TENANT_ID = "00000000-0000-0000-0000-000000000000"


def upgrade() -> None:
    tenants = op.create_table(
        "tenants",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column("name", sa.String(255), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.UniqueConstraint("name", name="uq_tenants_name"),
    )
    op.bulk_insert(
        tenants, [{"id": DEFAULT_TENANT_ID, "name": "default", "created_at": dt.datetime.now(dt.UTC)}]
    )
    op.create_table(
        "api_keys",
        sa.Column("id", sa.String(36), primary_key=True),
        sa.Column(
            "tenant_id",
            sa.String(36),
            sa.ForeignKey("tenants.id", name="fk_api_keys_tenant_id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("key_sha256", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("key_sha256", name="uq_api_keys_key_sha256"),
    )
    op.create_index("ix_api_keys_tenant_id", "api_keys", ["tenant_id"])
    op.create_table(
        "idempotency_keys",
        sa.Column(
            "tenant_id",
            sa.String(36),
            sa.ForeignKey("tenants.id", name="fk_idempotency_keys_tenant_id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("key", sa.String(255), primary_key=True),
        sa.Column("fingerprint", sa.String(64), nullable=False),
        sa.Column("status_code", sa.Integer(), nullable=True),
        sa.Column("response", JSON, nullable=True),
        sa.Column("location", sa.String(255), nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
    )
    # batch mode: SQLite rebuilds the tables to add foreign keys and swap the unique constraint.
    with op.batch_alter_table("datasets") as batch:
        batch.add_column(
            sa.Column("tenant_id", sa.String(36), nullable=False, server_default=DEFAULT_TENANT_ID)
        )
        batch.drop_constraint("uq_datasets_sha256", type_="unique")
        batch.create_unique_constraint("uq_datasets_tenant_sha256", ["tenant_id", "sha256"])
        batch.create_foreign_key(
            "fk_datasets_tenant_id", "tenants", ["tenant_id"], ["id"], ondelete="CASCADE"
        )
        batch.create_index("ix_datasets_tenant_id", ["tenant_id"])
    with op.batch_alter_table("datasets") as batch:
        batch.alter_column("tenant_id", server_default=None)
    with op.batch_alter_table("jobs") as batch:
        batch.add_column(
            sa.Column("tenant_id", sa.String(36), nullable=False, server_default=DEFAULT_TENANT_ID)
        )
        batch.add_column(sa.Column("attempt", sa.Integer(), nullable=False, server_default="0"))
        batch.add_column(sa.Column("attempts", JSON, nullable=False, server_default="[]"))
        batch.add_column(sa.Column("lease_expires_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("enqueued_at", sa.DateTime(timezone=True), nullable=True))
        batch.add_column(sa.Column("cancel_requested_at", sa.DateTime(timezone=True), nullable=True))
        batch.create_foreign_key("fk_jobs_tenant_id", "tenants", ["tenant_id"], ["id"], ondelete="CASCADE")
        batch.create_index("ix_jobs_tenant_id", ["tenant_id"])
    with op.batch_alter_table("jobs") as batch:
        batch.alter_column("tenant_id", server_default=None)
        batch.alter_column("attempts", server_default=None)
        batch.alter_column("attempt", server_default=None)
    # Jobs that already ran count one attempt; queued ones were sent when they were created.
    op.execute("UPDATE jobs SET attempt = 1 WHERE started_at IS NOT NULL")
    op.execute("UPDATE jobs SET enqueued_at = created_at")


def downgrade() -> None:
    with op.batch_alter_table("jobs") as batch:
        batch.drop_index("ix_jobs_tenant_id")
        batch.drop_constraint("fk_jobs_tenant_id", type_="foreignkey")
        for column in (
            "cancel_requested_at",
            "enqueued_at",
            "lease_expires_at",
            "attempts",
            "attempt",
            "tenant_id",
        ):
            batch.drop_column(column)
    # Two tenants may hold the same content; without tenants only one row per sha256 may stay.
    op.execute(
        "DELETE FROM datasets WHERE id IN (SELECT d.id FROM datasets d JOIN datasets e"
        " ON d.sha256 = e.sha256 AND (d.created_at > e.created_at OR (d.created_at = e.created_at AND d.id > e.id)))"
    )
    with op.batch_alter_table("datasets") as batch:
        batch.drop_index("ix_datasets_tenant_id")
        batch.drop_constraint("fk_datasets_tenant_id", type_="foreignkey")
        batch.drop_constraint("uq_datasets_tenant_sha256", type_="unique")
        batch.create_unique_constraint("uq_datasets_sha256", ["sha256"])
        batch.drop_column("tenant_id")
    op.drop_table("idempotency_keys")
    op.drop_index("ix_api_keys_tenant_id", table_name="api_keys")
    op.drop_table("api_keys")
    op.drop_table("tenants")
