"""ORM models. The schema itself is created only by the Alembic migrations in ``migrations/``.

tenants       who owns datasets and jobs; api_keys authenticate as one tenant (sha256 of the key)
idempotency_keys  the first response to a POST with an Idempotency-Key, per (tenant, key)
datasets      one content-addressed table (Parquet bytes) per (tenant, sha256)
jobs          one training job; its row is the truth about its state, its lease and attempts
job_results   at most one per job: the result document and the safetensors weights
outbox        one row per job whose id the broker has not yet accepted (the transactional outbox)
sweeps        a hyper-parameter sweep: its resolved request and, once every trial is terminal,
              its leaderboard; its trials are ordinary jobs with ``sweep_id`` set
"""

from __future__ import annotations

import datetime as dt
from enum import StrEnum
from typing import Any

from sqlalchemy import (
    JSON,
    BigInteger,
    DateTime,
    ForeignKey,
    Index,
    Integer,
    LargeBinary,
    String,
    Text,
    TypeDecorator,
    UniqueConstraint,
)
from sqlalchemy.dialects.postgresql import JSONB
from sqlalchemy.orm import DeclarativeBase, Mapped, mapped_column

JSONType = JSON().with_variant(JSONB(), "postgresql")


class UTCDateTime(TypeDecorator[dt.datetime]):
    """Timezone-aware UTC datetimes on every backend (SQLite stores them naive)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is not None and value.tzinfo is None:
            raise ValueError("naive datetime; use datetime.now(UTC)")
        return value.astimezone(dt.UTC) if value is not None else None

    def process_result_value(self, value: dt.datetime | None, dialect: Any) -> dt.datetime | None:
        if value is None:
            return None
        return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def utcnow() -> dt.datetime:
    return dt.datetime.now(dt.UTC)


class Base(DeclarativeBase):
    pass


class JobStatus(StrEnum):
    """A job's status, stored as its string. queued -> running -> succeeded | failed | cancelled
    (the transitions are app.db.repository's conditional UPDATEs)."""

    QUEUED = "queued"
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


JOB_ACTIVE = (JobStatus.QUEUED, JobStatus.RUNNING)
JOB_TERMINAL = (JobStatus.SUCCEEDED, JobStatus.FAILED, JobStatus.CANCELLED)


# Single-user mode acts as this tenant; migration 0002 creates it and gives it the rows that
# existed before tenants did.
DEFAULT_TENANT_ID = "00000000-0000-0000-0000-000000000000"
DEFAULT_TENANT_NAME = "default"


class Tenant(Base):
    __tablename__ = "tenants"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    name: Mapped[str] = mapped_column(String(255), unique=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)


class ApiKey(Base):
    """Only the sha256 of a key is stored: the key itself is shown once, when it is created."""

    __tablename__ = "api_keys"

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("tenants.id", ondelete="CASCADE"), index=True
    )
    key_sha256: Mapped[str] = mapped_column(String(64), unique=True)
    prefix: Mapped[str] = mapped_column(String(16))  # the key's first characters, to recognise it in a list
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)
    revoked_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)  # None: never
    # Space-separated (app.auth.SCOPES); None: a key made before scopes, which keeps what it had.
    scopes: Mapped[str | None] = mapped_column(String(64), nullable=True)
    name: Mapped[str | None] = mapped_column(String(255), nullable=True)  # what the key is for


class IdempotencyKey(Base):
    """A POST with an ``Idempotency-Key``: in flight while ``status_code`` is null, then its response."""

    __tablename__ = "idempotency_keys"

    tenant_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("tenants.id", ondelete="CASCADE"), primary_key=True
    )
    key: Mapped[str] = mapped_column(String(255), primary_key=True)
    fingerprint: Mapped[str] = mapped_column(String(64))  # sha256 of the operation and its canonical body
    status_code: Mapped[int | None] = mapped_column(Integer, nullable=True)
    response: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    location: Mapped[str | None] = mapped_column(String(255), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)


class Dataset(Base):
    __tablename__ = "datasets"
    __table_args__ = (UniqueConstraint("tenant_id", "sha256", name="uq_datasets_tenant_sha256"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("tenants.id", ondelete="CASCADE"), index=True
    )
    name: Mapped[str] = mapped_column(String(255))
    sha256: Mapped[str] = mapped_column(String(64))
    n_rows: Mapped[int] = mapped_column(Integer)
    feature_names: Mapped[list[str]] = mapped_column(JSONType)
    target: Mapped[str] = mapped_column(String(255))
    # [{"name", "n_rows", "binary", "n_ones"}] in table order; "binary": every label is 0 or 1;
    # "n_ones": rows whose label is 1 (datasets stored before 2026-12-06 have none).
    environments: Mapped[list[dict[str, Any]]] = mapped_column(JSONType)
    size_bytes: Mapped[int] = mapped_column(BigInteger)
    # The table as Parquet: in this row (``data``, datasets stored before migration 0009 and the
    # "database" store), or an object in the store ``storage`` ("local", "s3") under ``storage_key``
    # (app.datasets.objects).
    data: Mapped[bytes | None] = mapped_column(LargeBinary, deferred=True, nullable=True)
    storage: Mapped[str | None] = mapped_column(String(16), nullable=True)
    storage_key: Mapped[str | None] = mapped_column(String(512), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)
    # How the upload encoded text (app.datasets.encoding): {"features": {column: [values, sorted;
    # the first the reference]}, "missing": {column with missing cells: the mean that fills a
    # numeric one's, null for text}, "target": [value read as 0, value read as 1]}; NULL: none was.
    encoding: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)

    @property
    def n_features(self) -> int:
        return len(self.feature_names)

    @property
    def text_features(self) -> dict[str, list[str]]:
        features: dict[str, list[str]] = (self.encoding or {}).get("features", {})
        return features

    @property
    def missing_features(self) -> dict[str, float | None]:
        missing: dict[str, float | None] = (self.encoding or {}).get("missing", {})
        return missing

    @property
    def target_labels(self) -> list[str] | None:
        labels: list[str] | None = (self.encoding or {}).get("target")
        return labels

    @property
    def n_environments(self) -> int:
        return len(self.environments)


class Job(Base):
    __tablename__ = "jobs"
    __table_args__ = (Index("ix_jobs_created_at_id", "created_at", "id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("tenants.id", ondelete="CASCADE"), index=True
    )
    dataset_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("datasets.id", ondelete="SET NULL"), index=True
    )
    status: Mapped[str] = mapped_column(String(16), index=True, default=JobStatus.QUEUED)
    algorithm: Mapped[str] = mapped_column(String(64), index=True)
    task: Mapped[str] = mapped_column(String(32))
    params: Mapped[dict[str, Any]] = mapped_column(JSONType)
    model: Mapped[dict[str, Any]] = mapped_column(JSONType)
    seed: Mapped[int] = mapped_column(BigInteger)
    device: Mapped[str] = mapped_column(String(16))  # as requested: "auto", "cpu" or "cuda"
    queue: Mapped[str] = mapped_column(String(64))
    # Placement (migration 0006): the device the API chose at submit time ("cpu" or "cuda", by
    # sal_core.devices for "auto") and why; ``queue`` is the one whose workers can run it. Null
    # on older jobs, whose worker resolves ``device`` itself.
    device_chosen: Mapped[str | None] = mapped_column(String(16), nullable=True)
    device_reason: Mapped[str | None] = mapped_column(Text, nullable=True)
    train_environments: Mapped[list[str]] = mapped_column(JSONType)
    test_environments: Mapped[list[str]] = mapped_column(JSONType)
    progress_step: Mapped[int] = mapped_column(Integer, default=0)
    progress_total: Mapped[int | None] = mapped_column(Integer, nullable=True)
    error: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    # Crash recovery (migration 0002). ``attempt`` numbers the current claim and fences every
    # write a worker makes (progress, heartbeat, result), so a worker that lost its lease cannot
    # touch a job another worker took over. ``attempts``: [{"number", "started_at", "worker"}].
    attempt: Mapped[int] = mapped_column(Integer, default=0)
    attempts: Mapped[list[dict[str, Any]]] = mapped_column(JSONType, default=list)
    # The latest round's metrics, written with the progress (migration 0005): {"risk": r} and,
    # for at most PROGRESS_W_FEATURES features, {"w": {feature: w_i}}; never a history.
    progress_metrics: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    # The X-Request-ID of the request that submitted the job (migration 0005), for the worker's logs.
    request_id: Mapped[str | None] = mapped_column(String(128), nullable=True)
    lease_expires_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    enqueued_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    cancel_requested_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)
    started_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)
    # Reproducibility and sweeps (migration 0003).
    # {"fraction": f} (a seeded share of every training environment's rows) or {"environments": [...]}
    validation: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    dataset_sha256: Mapped[str | None] = mapped_column(String(64), nullable=True)
    # Written by the worker that ran the job: {"device", "versions": {...}, "hostname"}.
    runtime: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    rerun_of: Mapped[str | None] = mapped_column(String(36), nullable=True)
    sweep_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("sweeps.id", ondelete="CASCADE"), index=True, nullable=True
    )
    # What a person calls the run (migration 0007): set at submit time or by PATCH /jobs/{id};
    # searched by GET /jobs?q= and ?tag=.
    name: Mapped[str | None] = mapped_column(String(255), nullable=True, index=True)
    description: Mapped[str | None] = mapped_column(Text, nullable=True)
    tags: Mapped[list[str]] = mapped_column(JSONType, default=list, server_default="[]")

    # Read by the public schemas (``JobPublic.model_validate(job, from_attributes=True)``).
    @property
    def progress(self) -> dict[str, int | None]:
        return {"step": self.progress_step, "total": self.progress_total}

    @property
    def cancel_requested(self) -> bool:
        return self.cancel_requested_at is not None

    @property
    def n_attempts(self) -> int:
        return len(self.attempts or ())


class SweepStatus(StrEnum):
    """A sweep's status: running until every trial is terminal, then succeeded (a leaderboard),
    failed (no algorithm selected) or cancelled."""

    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    CANCELLED = "cancelled"


class Sweep(Base):
    __tablename__ = "sweeps"
    __table_args__ = (Index("ix_sweeps_created_at_id", "created_at", "id"),)

    id: Mapped[str] = mapped_column(String(36), primary_key=True)
    tenant_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("tenants.id", ondelete="CASCADE"), index=True
    )
    dataset_id: Mapped[str | None] = mapped_column(
        String(36), ForeignKey("datasets.id", ondelete="SET NULL"), index=True, nullable=True
    )
    status: Mapped[str] = mapped_column(String(16), default=SweepStatus.RUNNING)
    selection: Mapped[str] = mapped_column(String(32))
    # The request with every default resolved: task, environments, seeds, model, device and each
    # algorithm's list of trial parameters.
    spec: Mapped[dict[str, Any]] = mapped_column(JSONType)
    n_jobs: Mapped[int] = mapped_column(Integer)
    leaderboard: Mapped[dict[str, Any] | None] = mapped_column(JSONType, nullable=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)
    finished_at: Mapped[dt.datetime | None] = mapped_column(UTCDateTime(), nullable=True)


class JobResultRow(Base):
    __tablename__ = "job_results"

    job_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
    )
    result: Mapped[dict[str, Any]] = mapped_column(JSONType)
    weights: Mapped[bytes] = mapped_column(LargeBinary, deferred=True)  # safetensors
    weights_sha256: Mapped[str] = mapped_column(String(64))
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)


class OutboxRow(Base):
    """A job id to deliver to the broker, committed with the job itself (migration 0004). A relay
    (app.jobs.outbox) sends it and deletes the row; until then ``attempts`` and ``next_attempt_at``
    pace its retries."""

    __tablename__ = "outbox"

    job_id: Mapped[str] = mapped_column(
        String(36), ForeignKey("jobs.id", ondelete="CASCADE"), primary_key=True
    )
    queue: Mapped[str] = mapped_column(String(64))
    # The broker's priority for the message (app.queue.priority_of): sweep trials go after
    # interactive jobs.
    priority: Mapped[int] = mapped_column(Integer, default=0, server_default="0")
    attempts: Mapped[int] = mapped_column(Integer, default=0)
    next_attempt_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow, index=True)
    created_at: Mapped[dt.datetime] = mapped_column(UTCDateTime(), default=utcnow)
