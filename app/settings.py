"""The service's settings: one pydantic-settings class, read from ``SAL_*`` environment variables once.

The defaults are the embedded mode: SQLite (WAL) and kombu's filesystem transport under
``SAL_DATA_DIR``, so one machine needs no servers. Scale-out sets ``SAL_DATABASE_URL`` to
PostgreSQL and ``SAL_BROKER_URL`` to Redis; nothing else changes.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, SecretStr, model_validator
from pydantic_settings import BaseSettings, SettingsConfigDict


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="SAL_", extra="ignore")

    data_dir: Path = Field(
        default=Path("var"), description="Where the embedded database and broker files live."
    )
    database_url: str = Field(default="", description="SQLAlchemy URL; empty means SQLite in data_dir.")
    # Every process (each uvicorn process of the API, each worker process) has a pool of its own, so
    # the server sees processes x (db_pool_size + db_max_overflow) at most: keep that under its
    # max_connections (PostgreSQL's default 100), with room for psql, migrations and backups.
    # compose: 2 API processes x 15 = 30, plus a few per worker (docs/deployment.md#many-tenants).
    db_pool_size: int = Field(
        default=10, ge=1, description="PostgreSQL connections each process keeps open once used."
    )
    db_max_overflow: int = Field(
        default=5,
        ge=0,
        description="Connections a process may open beyond db_pool_size under load (closed when returned).",
    )
    db_pool_timeout_s: float = Field(
        default=10.0,
        gt=0,
        description="How long a request waits for one of its process's connections before a 503.",
    )
    broker_url: str = Field(
        default="", description="Celery broker URL; empty means kombu's filesystem transport in data_dir."
    )

    cpu_queue: str = "sal"
    gpu_queue: str = "gpu"
    gpu_workers: bool | None = Field(
        default=None,
        description=(
            "Whether workers with a GPU listen on gpu_queue: only then does the API send a "
            '"device": "auto" job there (sal_core.devices decides which need one). Unset: whether '
            "this process's torch sees CUDA, right for the embedded server; set it true on the API "
            "when a separate GPU worker runs (compose's gpu profile)."
        ),
    )

    # Celery time limits per job (seconds). The soft limit raises inside the fit so the job ends
    # `failed` with type `timeout`; the hard limit kills the worker child.
    task_soft_time_limit: int = Field(default=3600, ge=1)
    task_time_limit: int = Field(default=3900, ge=1)
    # A Redis message not acknowledged within this many seconds is delivered again; it must
    # exceed the hard time limit, and a redelivery is harmless anyway (the claim is conditional).
    broker_visibility_timeout: int = Field(default=7200, ge=1)
    broker_polling_interval: float = Field(
        default=0.1, gt=0, description="Server-less transports poll this often."
    )

    max_upload_bytes: int = Field(default=200 * 1024 * 1024, ge=1)
    max_json_body_bytes: int = Field(
        default=8 * 1024 * 1024, ge=1024, description="JSON bodies other than dataset uploads; more is a 413."
    )
    max_rows: int = Field(default=10_000_000, ge=1, description="Rows a dataset may have.")
    max_features: int = Field(default=10_000, ge=1, description="Feature columns a dataset may have.")
    max_response_bytes: int = Field(
        default=16 * 1024 * 1024,
        ge=1024,
        description="A list page stops early (next_cursor) once its JSON would pass this many bytes.",
    )
    max_cells: int = Field(
        default=50_000_000,
        ge=1,
        description="Rows x columns a dataset may have (8 bytes a cell decoded), checked before decoding.",
    )
    max_active_jobs_per_tenant: int = Field(
        default=100,
        ge=1,
        description="Queued plus running jobs (POST /jobs, reruns) one tenant may have; more is a 429.",
    )
    retry_after_s: int = Field(default=10, ge=1, description="Retry-After of a 429 (too many active jobs).")

    # API keys. "auto": single-user mode (no key, one implicit tenant) when the API binds a
    # loopback address, keys otherwise; "single-user" on a public address is allowed but warned about.
    auth: Literal["auto", "keys", "single-user"] = "auto"
    idempotency_in_flight_s: float = Field(
        default=60.0, gt=0, description="A POST still in flight after this long is taken to have died."
    )

    # Crash recovery. A running job's lease is renewed by its worker every heartbeat_s; a reaper
    # (a thread in every worker process) re-queues a job whose lease expired, up to max_attempts,
    # and re-sends a queued job no worker claimed within requeue_after_s (its message was lost).
    # Defaults meet "worker killed -> second attempt within 15 s": a pool child's redelivered
    # message takes over at once (its pid is dead); a whole host's jobs wait for lease_s plus a
    # reaper pass (<= 8 + 3 s).
    lease_s: float = Field(default=8.0, gt=0, description="A running job's lease; renewed every heartbeat_s.")
    heartbeat_s: float = Field(
        default=2.0, gt=0, description="How often a running job's worker renews its lease."
    )
    reaper_interval_s: float = Field(
        default=2.0, gt=0, description="How often each worker's reaper looks (jittered)."
    )
    max_attempts: int = Field(default=3, ge=1)
    requeue_after_s: float = Field(default=600.0, gt=0)
    idle_resend_s: float = Field(
        default=5.0,
        gt=0,
        description="A worker idle this long re-sends queued jobs of its queues sent this long ago (lost messages).",
    )
    idle_resend_batch: int = Field(default=50, ge=1, description="Most jobs one idle re-send pass sends.")
    dataset_cache_size: int = Field(
        default=8, ge=0, description="Datasets a worker keeps decoded, by sha256."
    )
    model_cache_size: int = Field(default=32, ge=0, description="Fitted models the API keeps for /predict.")
    mlflow_tracking_uri: str = Field(
        default="",
        description=(
            "MLflow tracking server that POST /jobs/{id}/exports/mlflow logs runs to (e.g. "
            "http://127.0.0.1:5000); empty turns that export off (503)."
        ),
    )
    progress_min_interval_s: float = Field(default=0.5, ge=0, description="Throttle for progress writes.")
    events_poll_s: float = Field(
        default=0.5,
        gt=0,
        description="How often each API process reads the jobs its event streams watch (one query for all).",
    )
    torch_threads: int | None = Field(
        default=None,
        ge=1,
        description="torch intra-op threads and numpy BLAS threads in a worker; SAL's exact w-paths split over as many (unset: the libraries' defaults, one per core).",
    )
    max_sweep_jobs: int = Field(
        default=5000,
        ge=1,
        description="Most jobs one sweep may create, and most sweep trials one tenant may have queued or running.",
    )

    # Many tenants, one service (app.api.ratelimit, app.api.security). Rates are `limits` strings
    # ("300/second;1200/minute": every one must hold), counted in Redis when the broker is Redis (so
    # every API process shares them) and in process memory otherwise.
    tenant_rate_limit: str = Field(
        default="300/second;1200/minute",
        description="Requests one tenant's keys may make; more is a 429 with Retry-After. Empty: no limit.",
    )
    rate_limit_single_user: bool = Field(
        default=False,
        description="Whether keyless requests in single-user mode are rate-limited too (one user: off).",
    )
    auth_failure_limit: str = Field(
        default="30/minute",
        description="Requests with an unknown or malformed key one source address may make; more is a 429.",
    )
    rate_limit_storage_url: str = Field(
        default="",
        description="A `limits` storage URL; empty: the broker when it is Redis, else process memory.",
    )
    max_datasets_per_tenant: int = Field(default=1000, ge=1, description="Datasets one tenant may store.")
    max_stored_bytes_per_tenant: int = Field(
        default=20 * 1024**3, ge=1, description="Bytes of dataset tables one tenant may store."
    )
    max_job_work: int = Field(
        default=2_000_000,
        ge=1,
        description="Rounds x steps one job may ask for (app.jobs.budget); more is a 422.",
    )
    max_tenant_work: int = Field(
        default=50_000_000,
        ge=1,
        description="Rounds x steps of one tenant's queued and running single jobs together; more is a 429.",
    )
    max_concurrent_uploads: int = Field(
        default=1,
        ge=1,
        description=(
            "Dataset uploads one API process parses at once (a table takes several times its file in "
            "memory while it is decoded); more wait up to upload_wait_s, then 503."
        ),
    )
    max_concurrent_uploads_per_tenant: int = Field(
        default=2,
        ge=1,
        description="Dataset uploads one tenant may have in flight (parsing or waiting) in one API process; more is a 429.",
    )
    upload_wait_s: float = Field(
        default=30.0, ge=0, description="How long an upload waits for a free parse slot before its 503."
    )
    max_streams_per_tenant: int = Field(
        default=100, ge=1, description="Event streams one tenant may hold open in one API process."
    )
    allowed_hosts: list[str] = Field(
        default_factory=list,
        description=(
            "Host headers the API answers (TrustedHost). Empty: in single-user mode only loopback "
            "names and the bound host (DNS rebinding); with keys, any."
        ),
    )
    allowed_origins: list[str] = Field(
        default_factory=list,
        description="Origins besides the API's own that may send state-changing requests.",
    )
    operator_tenants: list[str] = Field(
        default_factory=lambda: ["admin"],
        description="Tenants whose keys may read /metrics and erase tenants (single-user mode: the one user).",
    )
    report_cache_size: int = Field(default=64, ge=0, description="Rendered reports kept, by job ETag.")
    max_concurrent_renders: int = Field(
        default=2,
        ge=1,
        description="Reports rendered at once per API process; more wait (up to 30 s, then 503).",
    )
    # Where dataset tables live (app.storage). "auto": an S3 bucket when s3_bucket is set, else a
    # directory under data_dir on the embedded SQLite default, else the database row (PostgreSQL
    # with workers on other machines shares nothing else). Reads follow each dataset's own record,
    # so changing this moves nothing: `python -m app.admin datasets migrate-storage` does.
    dataset_store: Literal["auto", "database", "local", "s3"] = "auto"
    storage_dir: Path | None = Field(
        default=None, description="The local store's root; unset: data_dir/objects."
    )
    dataset_chunk_bytes: int = Field(
        default=32 * 1024 * 1024,
        ge=64 * 1024,
        description="A stored table's Parquet row groups hold about this many bytes of float64 cells.",
    )
    upload_chunk_bytes: int = Field(
        default=4 * 1024 * 1024,
        ge=64 * 1024,
        description=(
            "An uploaded file is parsed about this many bytes of it at a time (an upload being parsed "
            "holds about 10x this); each part is one row group of the stored table."
        ),
    )
    upload_sessions_dir: Path | None = Field(
        default=None,
        description=(
            "Where resumable uploads (POST /datasets/uploads) keep their bytes until committed; unset: "
            "data_dir/uploads. API replicas on several machines must share it."
        ),
    )
    upload_session_ttl_s: float = Field(
        default=24 * 3600.0,
        gt=0,
        description="A resumable upload not appended to for this long expires, and its bytes are removed.",
    )
    max_upload_sessions_per_tenant: int = Field(
        default=4, ge=1, description="Resumable uploads one tenant may have open at once; more is a 409."
    )
    chunked_fit_min_rows: int = Field(
        default=0,
        ge=0,
        description=(
            "Jobs on a dataset in an object store with at least this many rows read it chunk by chunk "
            "instead of loading it (0: never): linear regression fits (ERM, Ridge, Lasso, IRM; SAL and WDRL "
            "on the exact path, at lambda_=auto or a fixed one) from moments, as chunk tasks on chunk_queue; "
            "MLP regression fits (ERM; SAL under the linear path's w, at lambda_=auto or a fixed one) from minibatches "
            "streamed from the row groups."
        ),
    )
    chunk_queue: str = Field(
        default="sal-chunks",
        description="The queue of chunk tasks; any worker started with it in -Q helps with chunked fits.",
    )
    chunk_groups_per_task: int = Field(
        default=4,
        ge=1,
        description=(
            "Row groups one chunk task reads (4: a part's fixed costs, ~12 ms, spread over 4 groups; "
            "bench.scale at 10^7 rows: 1.65x faster on 1 worker and 1.5x on 2 than 1 group per task)."
        ),
    )
    chunk_stall_s: float = Field(
        default=120.0,
        gt=0,
        description="A chunk task started this long ago without a result is done again by the job's worker.",
    )
    s3_endpoint_url: str = Field(default="", description="An S3-compatible endpoint (MinIO); empty: AWS.")
    s3_region: str = Field(default="us-east-1", description="The bucket's region (MinIO accepts any).")
    s3_bucket: str = Field(default="", description="The bucket datasets are stored in (dataset_store s3).")
    s3_prefix: str = Field(default="sal/", description="Key prefix of the service's objects in s3_bucket.")
    s3_access_key_id: SecretStr | None = Field(
        default=None, description="Unset: boto3's own lookup (environment, ~/.aws, instance role)."
    )
    s3_secret_access_key: SecretStr | None = Field(
        default=None, description="The secret of s3_access_key_id; never logged or shown."
    )
    host: str = Field(default="127.0.0.1", description="The address the API binds (python -m app.embedded).")
    port: int = Field(default=8000, description="The port the API binds (python -m app.embedded).")
    worker_concurrency: int = Field(default=1, ge=1, description="Worker processes started by app.embedded.")

    @model_validator(mode="after")
    def _fill_embedded_defaults(self) -> Settings:
        if not self.database_url:
            self.database_url = f"sqlite:///{(self.data_dir / 'sal.db').as_posix()}"
        if not self.broker_url:
            self.broker_url = "filesystem://"
        if self.task_time_limit <= self.task_soft_time_limit:
            raise ValueError("task_time_limit must be larger than task_soft_time_limit")
        if self.heartbeat_s * 2 > self.lease_s:
            raise ValueError("heartbeat_s must be at most half of lease_s, or a live job loses its lease")
        if self.dataset_store == "s3" and not self.s3_bucket:
            raise ValueError("dataset_store s3 needs s3_bucket")
        return self

    @property
    def single_user(self) -> bool:
        """No API key needed: every request acts as the default tenant."""
        if self.auth == "auto":
            return is_loopback(self.host)
        return self.auth == "single-user"

    @property
    def has_gpu_workers(self) -> bool:
        """Whether jobs sent to ``gpu_queue`` have a worker that can run them (see ``gpu_workers``)."""
        if self.gpu_workers is not None:
            return self.gpu_workers
        import torch  # here, not at the top: settings are read by processes that never fit

        return bool(torch.cuda.is_available())

    @property
    def dataset_store_kind(self) -> Literal["database", "local", "s3"]:
        """Where new dataset tables go ("auto" resolved)."""
        if self.dataset_store != "auto":
            return self.dataset_store
        if self.s3_bucket:
            return "s3"
        return "local" if self.is_sqlite else "database"

    @property
    def is_sqlite(self) -> bool:
        return self.database_url.startswith("sqlite")

    @property
    def broker_transport_options(self) -> dict[str, Any]:
        if self.broker_url.startswith("filesystem://"):
            root = self.data_dir / "broker"
            return {
                "data_folder_in": str(root / "queue"),
                "data_folder_out": str(root / "queue"),
                "control_folder": str(root / "control"),
                "polling_interval": self.broker_polling_interval,
            }
        if self.broker_url.startswith(("redis://", "rediss://")):
            return {"visibility_timeout": self.broker_visibility_timeout}
        return {}

    def prepare_dirs(self) -> None:
        """Create the folders the embedded database and broker need (nothing for PostgreSQL + Redis)."""
        if self.database_url.startswith("sqlite:///") and self.database_url != "sqlite:///:memory:":
            Path(self.database_url.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
        if self.broker_url.startswith("filesystem://"):
            for key in ("data_folder_in", "control_folder"):
                Path(self.broker_transport_options[key]).mkdir(parents=True, exist_ok=True)


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    """The process's settings, read from the environment once."""
    settings = Settings()
    settings.prepare_dirs()
    return settings
