"""GET /datasets and GET /sweeps list summaries, as GET /jobs does: under 1 KB an item however wide
the dataset or large the search, the detail behind GET by id. Listing sweeps only reads: it never
selects a leaderboard or commits."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from fastapi.testclient import TestClient

from app.db import migrate
from app.main import create_app
from app.settings import Settings
from tests.app import factories as f

ITEM_BYTES = 1024


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    """The API on SQLite with a queue that only records: jobs stay queued."""
    config = Settings(data_dir=tmp_path, broker_url="memory://")
    config.prepare_dirs()
    migrate.upgrade(config.database_url)
    queue = f.RecordingQueue(config, None)
    app = create_app(config, queue=queue)
    queue.engine = app.state.engine
    with TestClient(app) as c:
        yield c
    app.state.engine.dispose()


def _wide(n_features: int = 60, n_envs: int = 12) -> pd.DataFrame:
    rng = np.random.default_rng(2150)
    names = [f"a_rather_long_covariate_name_{i:03d}" for i in range(n_features)]
    frame = pd.DataFrame(rng.normal(size=(20 * n_envs, n_features)), columns=names)
    frame.insert(0, "env", [f"environment_{k:02d}" for k in range(n_envs) for _ in range(20)])
    frame["y"] = rng.normal(size=len(frame))
    return frame


def _size(item: dict[str, Any]) -> int:
    return len(json.dumps(item, separators=(",", ":"), ensure_ascii=False).encode())


def test_datasets_and_sweeps_list_summaries_under_1_kb(client: TestClient) -> None:
    dataset = f.upload_csv(client, _wide()).json()
    detail = client.get(f"/datasets/{dataset['id']}").json()
    assert len(detail["feature_names"]) == 60 and len(detail["environments"]) == 12
    assert _size(detail) > ITEM_BYTES  # the detail would not fit: the summary is what keeps it small
    [item] = client.get("/datasets").json()["items"]
    assert _size(item) < ITEM_BYTES
    assert item | {"n_features": 60, "n_environments": 12} == item
    assert {k: item[k] for k in ("id", "name", "sha256", "n_rows", "target")} == {
        k: detail[k] for k in ("id", "name", "sha256", "n_rows", "target")
    }

    environments = [e["name"] for e in detail["environments"]]
    body = {
        "dataset_id": dataset["id"],
        "train_environments": environments[:10],
        "algorithms": {
            "ridge": {"grid": {"lambda_": [0.01, 0.1, 1.0]}},
            "erm": {},
            "sal": {"grid": {"lambda_": [0.1, 1.0]}},
        },
        "seeds": list(range(30)),
        "device": "cpu",
    }
    sweep = client.post("/sweeps", json=body)
    assert sweep.status_code == 202, sweep.text
    assert _size(client.get(f"/sweeps/{sweep.json()['id']}").json()) > ITEM_BYTES
    [listed] = client.get("/sweeps").json()["items"]
    assert _size(listed) < ITEM_BYTES
    assert listed["algorithms"] == ["ridge", "erm", "sal"] and listed["n_seeds"] == 30
    assert listed["progress"]["total"] == listed["progress"]["queued"] == 180


def test_listing_sweeps_never_selects_or_commits(client: TestClient) -> None:
    dataset = f.upload_csv(client, f.frame(seed=2151)).json()["id"]
    body = {
        "dataset_id": dataset,
        "train_environments": ["a", "b"],
        "algorithms": {"erm": {}},
        "seeds": [0, 1],
    }
    sweep = client.post("/sweeps", json=body).json()
    for job in client.get("/jobs", params={"sweep_id": sweep["id"]}).json()["items"]:
        assert client.post(f"/jobs/{job['id']}/cancel").status_code == 200  # queued: cancelled at once
    for _ in range(2):  # every trial is terminal, yet the list leaves the sweep as it was stored
        [listed] = client.get("/sweeps").json()["items"]
        assert listed["status"] == "running"
        assert listed["progress"]["done"] == listed["progress"]["total"] == 2
    read = client.get(f"/sweeps/{sweep['id']}").json()  # read by id: refreshed (no trial succeeded)
    assert read["status"] == "failed" and read["leaderboard"]["algorithms"] == []
    assert client.get("/sweeps").json()["items"][0]["status"] == "failed"
