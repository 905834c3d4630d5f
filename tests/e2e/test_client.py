"""The generated Python client: in step with the API, and working end to end."""

from __future__ import annotations

import filecmp
import io
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest
from safetensors.torch import load as st_load

from sal_core import FittedModel
from tests.e2e import scenario

ROOT = Path(__file__).resolve().parents[2]
CLIENT = ROOT / "clients" / "python"


def _differences(a: Path, b: Path) -> list[str]:
    cmp = filecmp.dircmp(a, b, ignore=[".ruff_cache", "__pycache__"])
    out: list[str] = []

    def walk(c: filecmp.dircmp[str], prefix: str) -> None:
        out.extend(f"{prefix}{n} (only in one)" for n in c.left_only + c.right_only)
        out.extend(f"{prefix}{n}" for n in c.diff_files)
        for name, sub in c.subdirs.items():
            walk(sub, f"{prefix}{name}/")

    walk(cmp, "")
    return out


@pytest.mark.slow
def test_checked_in_client_is_in_step_with_the_api(tmp_path: Path) -> None:
    out = tmp_path / "clients" / "python"
    subprocess.run(["bash", str(ROOT / "scripts" / "gen_client.sh"), str(out)], check=True, cwd=ROOT)
    assert (tmp_path / "clients" / "openapi.json").read_text() == (
        ROOT / "clients" / "openapi.json"
    ).read_text(), "clients/openapi.json is stale: run bash scripts/gen_client.sh"
    assert _differences(out, CLIENT) == [], "clients/python is stale: run bash scripts/gen_client.sh"


def test_operation_ids_are_readable() -> None:
    spec = json.loads((ROOT / "clients" / "openapi.json").read_text())
    ids = {op["operationId"] for path in spec["paths"].values() for op in path.values()}
    assert {
        "create_dataset", "list_datasets", "get_dataset", "delete_dataset", "create_job", "list_jobs",
        "get_job", "get_job_weights", "predict", "cancel_job", "list_algorithms", "healthz", "readyz",
        "rerun_job", "get_job_report", "create_sweep", "list_sweeps", "get_sweep", "cancel_sweep", "get_sweep_report",
        "get_job_history", "get_job_events", "update_job", "delete_job", "compare_jobs",
    } <= ids  # fmt: skip
    assert all(i.replace("_", "").isalpha() and i.islower() for i in ids), ids  # snake_case verbs


@pytest.mark.services
@pytest.mark.slow
def test_client_uploads_submits_polls_and_downloads(embedded: str, embedded_data_dir: Path) -> None:
    # A key made by the admin command, as a user of a keyed deployment would (the embedded
    # instance runs single-user, where a key still acts as its own tenant).
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAL_")} | {
        "SAL_DATA_DIR": str(embedded_data_dir)
    }
    created = subprocess.run(
        [sys.executable, "-m", "app.admin", "keys", "create", "--tenant", "client-e2e"],
        env=env, cwd=ROOT, capture_output=True, text=True, check=True,
    )  # fmt: skip
    token = next(
        line.split()[-1]
        for line in created.stdout.splitlines()
        if line.startswith("key ") and line.split()[:2] != ["key", "id"]  # the key itself may hold "id"
    )
    sys.path.insert(0, str(CLIENT))
    try:
        from sal_client import AuthenticatedClient
        from sal_client.api.datasets import create_dataset
        from sal_client.api.jobs import create_job, get_job, get_job_weights, predict
        from sal_client.models import (
            DatasetPublic,
            DatasetUpload,
            JobCreate,
            JobPublic,
            PredictRequest,
            PredictResponse,
        )
        from sal_client.types import File
    finally:
        sys.path.remove(str(CLIENT))

    s = scenario.setting("regression")
    with AuthenticatedClient(base_url=embedded, token=token, raise_on_unexpected_status=True) as client:
        upload = DatasetUpload(
            file=File(payload=io.BytesIO(scenario.to_csv(s)), file_name="sb.csv", mime_type="text/csv"),
            target="outcome",
            environment="site",
            name="client",
        )
        dataset = create_dataset.sync(client=client, body=upload)
        assert isinstance(dataset, DatasetPublic), dataset
        body = JobCreate.from_dict(
            {
                "dataset_id": dataset.id,
                "algorithm": "erm",
                "train_environments": [e.name for e in s.train],
                "device": "cpu",
            }
        )
        job = create_job.sync(client=client, body=body)
        assert isinstance(job, JobPublic), job
        deadline = time.monotonic() + 120
        while job.status.value in ("queued", "running"):
            assert time.monotonic() < deadline
            time.sleep(0.1)
            job = get_job.sync(job.id, client=client)
            assert isinstance(job, JobPublic)
        assert job.status.value == "succeeded", job.error
        assert job.result is not None and len(job.result.environments) == len(s.train) + len(s.test)

        weights = get_job_weights.sync(job.id, client=client)
        assert isinstance(weights, File)
        data = weights.payload.read()
        n = int.from_bytes(data[:8], "little")
        model = FittedModel.from_tensors(st_load(data), json.loads(data[8 : 8 + n])["__metadata__"])
        X = s.test[0].X[:10]
        served = predict.sync(job.id, client=client, body=PredictRequest(x=X.tolist()))
        assert isinstance(served, PredictResponse)
        assert np.allclose(served.predictions, model.predict(X))
