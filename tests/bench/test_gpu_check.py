"""bench.gpu_check runs on CPU: its agreement step (CPU against CPU here) and its step runner."""

from __future__ import annotations

import sys
from pathlib import Path

from bench import gpu_check


def test_smoke_run_writes_the_agreement_report(tmp_path: Path) -> None:
    gpu_check.main(["--smoke", "--out", str(tmp_path)])
    text = (tmp_path / "agreement.txt").read_text()
    assert (
        "exit 0" in text
        and "deep_sal log w" in text
        and "deep_sal minibatch prediction" in text
        and "sal prediction" in text
    )
    assert (tmp_path / "summary.md").exists()


def test_agreement_of_a_device_with_itself_is_exact() -> None:
    values = gpu_check.agreement(("cpu", "cpu"), n=200, rounds=2)
    assert values and max(values.values()) == 0.0


def test_a_step_that_overruns_is_reported_not_raised(tmp_path: Path) -> None:
    text = gpu_check.run_step("sleep", [sys.executable, "-c", "import time; time.sleep(5)"], tmp_path, 0.5)
    assert "TIMEOUT" in text and (tmp_path / "sleep.txt").exists()
