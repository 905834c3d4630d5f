"""Objects in an S3-compatible bucket (AWS S3, MinIO, Ceph, R2...) through boto3.

The endpoint, bucket, prefix and credentials come from settings (``SAL_S3_*``); credentials are
``SecretStr`` there and are handed to boto3 only here, never logged. A missing key is
:class:`ObjectNotFound`, refused credentials :class:`AccessDenied`, an endpoint that does not
answer :class:`StoreUnavailable`: callers turn them into 4xx/503 problems.
"""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import boto3
from botocore.config import Config
from botocore.exceptions import BotoCoreError, ClientError, NoCredentialsError, ParamValidationError
from pydantic import SecretStr

from app.storage.base import (
    AccessDenied,
    ObjectInfo,
    ObjectNotFound,
    StorageError,
    StoreUnavailable,
    check_key,
)

__all__ = ["S3Store", "make_client"]

_NOT_FOUND = {"404", "NoSuchKey", "NoSuchBucket", "NotFound"}
_DENIED = {
    "403",
    "AccessDenied",
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "InvalidToken",
    "ExpiredToken",
    "AllAccessDisabled",
}


def make_client(
    *,
    endpoint_url: str | None,
    region: str,
    access_key_id: SecretStr | None,
    secret_access_key: SecretStr | None,
    connect_timeout_s: float = 5.0,
    read_timeout_s: float = 60.0,
) -> Any:
    """A boto3 S3 client. Without explicit credentials boto3 looks in its usual places (the
    environment, ~/.aws, an instance role). Path-style addressing: MinIO and most non-AWS stores
    need it, and AWS still accepts it."""
    return boto3.session.Session().client(
        "s3",
        endpoint_url=endpoint_url or None,
        region_name=region,
        aws_access_key_id=access_key_id.get_secret_value() if access_key_id else None,
        aws_secret_access_key=secret_access_key.get_secret_value() if secret_access_key else None,
        config=Config(
            s3={"addressing_style": "path"},
            connect_timeout=connect_timeout_s,
            read_timeout=read_timeout_s,
            retries={"max_attempts": 3, "mode": "standard"},
        ),
    )


class S3Store:
    """Objects under ``prefix`` in ``bucket``; a key ``k`` is the S3 key ``prefix + k``."""

    kind = "s3"

    def __init__(self, client: Any, bucket: str, prefix: str = "") -> None:
        if prefix and not prefix.endswith("/"):
            prefix += "/"
        self._client = client
        self.bucket = bucket
        self.prefix = prefix

    @property
    def identity(self) -> str:
        return f"s3:{self._client.meta.endpoint_url}/{self.bucket}/{self.prefix}"

    def _key(self, key: str) -> str:
        return self.prefix + check_key(key)

    @contextmanager
    def _errors(self, key: str) -> Iterator[None]:
        where = f"s3://{self.bucket}/{self.prefix}{key}"
        try:
            yield
        except ClientError as exc:
            error = exc.response.get("Error", {})
            code = str(error.get("Code", ""))
            status = str(exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", ""))
            if code in _NOT_FOUND or status == "404":
                what = "no bucket" if code == "NoSuchBucket" else "no object"
                raise ObjectNotFound(f"{what} at {where}") from None
            if code in _DENIED or status == "403":
                raise AccessDenied(f"the store refused access to {where} ({code or status})") from None
            raise StorageError(f"the store failed on {where} ({code or status})") from None
        except NoCredentialsError:
            raise AccessDenied(f"no credentials for {where}") from None
        except ParamValidationError:
            raise ValueError(f"invalid bucket or key {where!r}") from None
        except BotoCoreError as exc:
            # Connection errors name the endpoint, not the credentials.
            raise StoreUnavailable(f"the store did not answer for {where}: {type(exc).__name__}") from None

    def put(self, key: str, data: bytes) -> None:
        with self._errors(key):
            # Multipart above boto3's threshold (8 MiB), each part with its checksum; S3 shows an
            # object only once it is complete.
            self._client.upload_fileobj(io.BytesIO(data), self.bucket, self._key(key))

    def put_file(self, key: str, path: Path) -> None:
        with self._errors(key):
            # boto3 reads the file part by part (8 MiB), a few parts in flight at once.
            self._client.upload_file(str(path), self.bucket, self._key(key))

    def get(self, key: str) -> bytes:
        with self._errors(key):
            body = self._client.get_object(Bucket=self.bucket, Key=self._key(key))["Body"]
            return bytes(body.read())

    def get_range(self, key: str, start: int, length: int) -> bytes:
        if length <= 0:
            return b""
        with self._errors(key):
            body = self._client.get_object(
                Bucket=self.bucket, Key=self._key(key), Range=f"bytes={start}-{start + length - 1}"
            )["Body"]
            return bytes(body.read())

    def size(self, key: str) -> int:
        with self._errors(key):
            return int(self._client.head_object(Bucket=self.bucket, Key=self._key(key))["ContentLength"])

    def exists(self, key: str) -> bool:
        try:
            self.size(key)
        except ObjectNotFound:
            return False
        return True

    def list(self, prefix: str) -> list[ObjectInfo]:
        found = []
        with self._errors(prefix):
            pages = self._client.get_paginator("list_objects_v2").paginate(
                Bucket=self.bucket, Prefix=self.prefix + prefix
            )
            for page in pages:
                for item in page.get("Contents", []):
                    found.append(ObjectInfo(item["Key"][len(self.prefix) :], int(item["Size"])))
        return sorted(found, key=lambda o: o.key)

    def delete(self, key: str) -> None:
        with self._errors(key):
            self._client.delete_object(Bucket=self.bucket, Key=self._key(key))
