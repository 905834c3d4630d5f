"""A worker's thread setting holds torch and numpy's BLAS alike (in a child process: the limits are
process-wide and would leak into the rest of the suite)."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.deploy.buildfiles import ROOT

_PROBE = """
import json, sys
import torch
from threadpoolctl import threadpool_info
from app.settings import Settings
from worker.runner import Runner
settings = Settings(database_url="sqlite:///" + sys.argv[1], torch_threads=int(sys.argv[2]) if sys.argv[2] else None)
Runner.from_settings(settings).close()
blas = [pool["num_threads"] for pool in threadpool_info() if pool["user_api"] == "blas"]
print(json.dumps({"torch": torch.get_num_threads(), "blas": blas}))
"""


def _threads(tmp_path: object, setting: str) -> dict[str, object]:
    out = subprocess.run(
        [sys.executable, "-c", _PROBE, f"{tmp_path}/t.db", setting],
        cwd=ROOT, capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    result: dict[str, object] = json.loads(out.stdout.strip().splitlines()[-1])
    return result


def test_torch_threads_setting_holds_numpy_blas_too(tmp_path: object) -> None:
    held = _threads(tmp_path, "1")
    assert held["torch"] == 1
    assert held["blas"] and all(n == 1 for n in held["blas"])  # type: ignore[union-attr]


def test_unset_leaves_the_libraries_defaults(tmp_path: object) -> None:
    free = _threads(tmp_path, "")
    assert free["blas"]  # numpy's BLAS is found, so the test above reads something
