"""Where dataset bytes live: one :class:`ObjectStore` interface, a local directory on the embedded
default and an S3-compatible bucket for scale-out. The database keeps each dataset's metadata and
which store holds it (``Dataset.storage``, ``Dataset.storage_key``)."""

from __future__ import annotations

from app.settings import Settings
from app.storage.base import (
    AccessDenied,
    ObjectInfo,
    ObjectNotFound,
    ObjectStore,
    RangeFile,
    StorageError,
    StoreUnavailable,
    check_key,
)

__all__ = [
    "AccessDenied",
    "ObjectInfo",
    "ObjectNotFound",
    "ObjectStore",
    "RangeFile",
    "StorageError",
    "StoreUnavailable",
    "check_key",
    "open_bucket",
    "open_store",
]


_opened: dict[tuple[object, ...], ObjectStore] = {}


def open_store(settings: Settings, kind: str) -> ObjectStore:
    """The store of this ``kind`` ("local" or "s3") as the settings configure it; one per
    configuration and process (a boto3 client is thread-safe and slow to make)."""
    config = (kind, settings.storage_dir, settings.data_dir, *_s3_config(settings))
    store = _opened.get(config)
    if store is None:
        store = _opened[config] = _make(settings, kind)
    return store


def _s3_config(settings: Settings) -> tuple[object, ...]:
    secrets = (settings.s3_access_key_id, settings.s3_secret_access_key)
    return (
        settings.s3_endpoint_url,
        settings.s3_region,
        settings.s3_bucket,
        settings.s3_prefix,
        *(s.get_secret_value() if s is not None else None for s in secrets),
    )


def _make(settings: Settings, kind: str) -> ObjectStore:
    if kind == "local":
        from app.storage.local import LocalStore

        return LocalStore(settings.storage_dir or settings.data_dir / "objects")
    if kind == "s3":
        if not settings.s3_bucket:
            raise StorageError("no S3 bucket is configured (SAL_S3_BUCKET)")
        # boto3 is imported only where S3 is used: the embedded server never loads it.
        from app.storage.s3 import S3Store, make_client

        client = make_client(
            endpoint_url=settings.s3_endpoint_url,
            region=settings.s3_region,
            access_key_id=settings.s3_access_key_id,
            secret_access_key=settings.s3_secret_access_key,
        )
        return S3Store(client, settings.s3_bucket, settings.s3_prefix)
    raise ValueError(f"unknown store {kind!r}")


def open_bucket(settings: Settings, bucket: str) -> ObjectStore:
    """Another bucket on the configured S3 endpoint, with the service's credentials (datasets
    registered by reference): its keys are the bucket's own, no prefix."""
    from app.storage.s3 import S3Store

    store = open_store(settings.model_copy(update={"s3_bucket": bucket, "s3_prefix": ""}), "s3")
    assert isinstance(store, S3Store)
    return store
