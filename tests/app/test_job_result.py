"""The typed job result reads every shape stored before it (the tolerant reader)."""

from __future__ import annotations

import math
from typing import Any

from app.jobs.result import JobResult
from sal_core.history import Round, as_rounds


def _stored(history: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "environments": [
            {"name": "a", "split": "train", "n_rows": 5, "mse": 1.0},
            {"name": "b", "split": "train", "n_rows": 5, "mse": 2.0},
            {"name": "t", "split": "test", "n_rows": 5, "mse": 3.0},
        ],
        "summary": None, "coefficients": None, "intercept": None, "covariate_weights": None,
        "history": history, "certificate": None, "duration_s": 0.5, "device": "cpu",
    }  # fmt: skip


def test_old_history_shapes_read_as_rounds() -> None:
    erm = JobResult.model_validate(_stored([{"round": 1, "env_losses": [1.0, 3.0]}]))
    assert erm.history[0].env_losses == {"a": 1.0, "b": 3.0}
    assert erm.history[0].risk == 2.0  # the old ERM rows had no objective: the mean stands in
    ridge = JobResult.model_validate(_stored([{"round": 1, "env_losses": [1.0, 2.0], "objective": 1.7}]))
    assert ridge.history[0].risk == 1.7 and ridge.history[0].w is None
    irm = JobResult.model_validate(
        _stored([{"round": 1, "env_losses": [1.0, 2.0], "penalties": [0.1, 0.3], "objective": 2.0}])
    )
    assert irm.history[0].penalty is not None and math.isclose(irm.history[0].penalty, 0.2)
    sal = JobResult.model_validate(
        _stored([{"round": 2, "risk": None, "w": [1.0, 4.0], "env_losses": {"a": 1.0, "b": None}}])
    )
    assert sal.history[0].round == 2 and sal.history[0].risk is None and sal.history[0].w == [1.0, 4.0]
    assert sal.history[0].env_losses == {"a": 1.0, "b": None}


def test_current_rows_round_trip_unchanged() -> None:
    row = Round(round=1, risk=math.inf, env_losses={"a": 1.0}, w=[1.0], penalty=None).to_dict()
    assert row["risk"] is None  # JSON has no infinity
    doc = JobResult.model_validate(_stored([row])).to_json()
    assert doc["history"] == [row] and doc["selection"] is None and doc["validation"] is None
    assert JobResult.model_validate(doc) == JobResult.model_validate(_stored([row]))


def test_as_rounds_keeps_rounds_and_reads_dicts() -> None:
    typed = Round(round=1, risk=0.5, env_losses={"a": 0.5})
    rounds = as_rounds([typed, {"env_losses": [0.1], "objective": 0.1}], ["a"])
    assert rounds[0] is typed and rounds[1] == Round(round=2, risk=0.1, env_losses={"a": 0.1})


def test_rows_stored_with_a_device_read_and_the_job_shows_one_device_record() -> None:
    from types import SimpleNamespace

    from app.jobs import reproducibility

    old = {**_stored([]), "device_reason": "requested cpu"}  # as workers wrote it before the record
    doc = JobResult.model_validate(old).to_json()
    assert "device" not in doc and "device_reason" not in doc and doc["duration_s"] == 0.5
    queued = SimpleNamespace(device="auto", device_chosen="cpu", device_reason="small", runtime=None)
    assert reproducibility.device(queued) == {
        "requested": "auto",
        "chosen": "cpu",
        "reason": "small",
        "ran_on": None,
    }
    before_placement = SimpleNamespace(
        device="cuda", device_chosen=None, device_reason=None, runtime={"device": "cuda:0"}
    )
    assert reproducibility.device(before_placement)["ran_on"] == "cuda:0"


def test_a_reference_that_is_not_finite_is_left_out_rather_than_failing_the_job() -> None:
    """ReferenceComparison.of keeps a finite comparison as it is and drops one with a NaN or an
    infinity anywhere (a diverged ERM must not fail the SAL job it only comments on)."""
    from app.jobs.result import ReferenceComparison
    from sal_core.metrics import PairedDifference

    kept = ReferenceComparison.of(PairedDifference("rmse", -0.07, 0.004, 0.52))
    assert kept is not None and (kept.algorithm, kept.metric, kept.mean_error) == ("erm", "rmse", 0.52)
    assert (kept.difference, kept.standard_error) == (-0.07, 0.004)
    nan, inf = float("nan"), float("inf")
    assert ReferenceComparison.of(PairedDifference("rmse", -0.07, 0.004, nan)) is None
    assert ReferenceComparison.of(PairedDifference("rmse", inf, 0.004, 0.52)) is None
    assert ReferenceComparison.of(PairedDifference("rmse", -0.07, nan, 0.52)) is None
