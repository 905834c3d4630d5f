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


def test_the_exact_device_step_fits_on_both_and_reports_their_differences() -> None:
    """Without a GPU both fits run on the CPU (the w-paths go to the device only on an accelerator),
    so the row's differences are exactly zero: the step's plumbing, not the torch path, is tested
    here (tests/sal_core/test_exact_torch.py compares that path with the numpy one)."""
    rows = gpu_check.exact_on_device("cpu", [(400, 12, True), (300, 6, False)])
    cells = [row.strip("| ").split(" | ") for row in rows]
    assert [c[:2] for c in cells] == [["12", "400"], ["6", "300"]]
    assert float(cells[0][5]) == 0.0 and float(cells[0][6]) == 0.0 and cells[1][3] == "—"
