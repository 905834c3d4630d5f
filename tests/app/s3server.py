"""A real S3 API server on loopback for the storage tests: moto's standalone server in its own
process, with authentication on, so wrong credentials are refused as a real store refuses them.

Moto checks credentials against its own IAM after its first INITIAL_NO_AUTH_ACTION_COUNT requests:
those create the user, its access key and its policy; every later request is signed and checked.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import boto3
import httpx
from pydantic import SecretStr

from tests.conftest import Proc, _wait_for, free_port

BUCKET = "sal-test"
_BOOTSTRAP_REQUESTS = 3  # create_user, create_access_key, put_user_policy


class S3Server:
    def __init__(self, log_path: Path) -> None:
        self.port = free_port()
        self.endpoint_url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(_BOOTSTRAP_REQUESTS)}
        self.proc = Proc(
            [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)], env, log_path
        )
        _wait_for(self._up, 60, "moto's S3 server")
        self.access_key_id, self.secret_access_key = self._bootstrap()
        self.client(self.access_key_id, self.secret_access_key).create_bucket(Bucket=BUCKET)

    def _up(self) -> bool:
        if self.proc.popen.poll() is not None:
            raise RuntimeError(f"moto exited:\n{self.proc.log()[-4000:]}")
        try:
            return httpx.get(f"{self.endpoint_url}/moto-api/", timeout=1).status_code == 200
        except httpx.HTTPError:
            return False

    def _bootstrap(self) -> tuple[str, str]:
        iam = boto3.client(
            "iam",
            endpoint_url=self.endpoint_url,
            region_name="us-east-1",
            aws_access_key_id="bootstrap",
            aws_secret_access_key="bootstrap",
        )
        iam.create_user(UserName="sal")
        key = iam.create_access_key(UserName="sal")["AccessKey"]
        policy = {
            "Version": "2012-10-17",
            "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}],
        }
        iam.put_user_policy(UserName="sal", PolicyName="s3", PolicyDocument=json.dumps(policy))
        return str(key["AccessKeyId"]), str(key["SecretAccessKey"])

    def client(self, access_key_id: str, secret_access_key: str) -> Any:
        return boto3.client(
            "s3",
            endpoint_url=self.endpoint_url,
            region_name="us-east-1",
            aws_access_key_id=access_key_id,
            aws_secret_access_key=secret_access_key,
        )

    def settings(self, *, prefix: str = "sal/", secret: str | None = None) -> dict[str, Any]:
        """Settings fields (for ``Settings.model_copy(update=...)``) that store datasets here."""
        return {
            "dataset_store": "s3",
            "s3_endpoint_url": self.endpoint_url,
            "s3_bucket": BUCKET,
            "s3_prefix": prefix,
            "s3_access_key_id": SecretStr(self.access_key_id),
            "s3_secret_access_key": SecretStr(secret or self.secret_access_key),
        }

    def stop(self) -> None:
        self.proc.stop()
