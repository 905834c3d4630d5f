"""A sweep's cost is bounded before it is paid (issue 24): its total is checked before any point is
built or validated, and repeated points are removed in one pass."""

from __future__ import annotations

import pytest

from app.sweeps import plan
from sal_core import InvalidParameterError


def test_the_total_is_refused_before_any_point_is_built(monkeypatch: pytest.MonkeyPatch) -> None:
    def never(*_: object, **__: object) -> None:
        raise AssertionError("a point was built")

    monkeypatch.setattr(plan, "_product", never)
    huge = {"grid": {"lambda_": list(range(3000)), "rounds": list(range(3000))}}
    with pytest.raises(InvalidParameterError) as refused:
        plan.check_total({"sal": huge}, seeds=1, n_train=2, selection="oracle", limit=5000)
    assert refused.value.field == "algorithms" and "9000000" in refused.value.message


def test_the_total_counts_seeds_folds_and_distinct_values_only() -> None:
    search = {"grid": {"lambda_": [0.1, 1.0, 1.0, 0.1]}}  # two distinct values
    assert plan.point_count("sal", search) == 2
    assert plan.check_total({"sal": search}, seeds=3, n_train=2, selection="oracle", limit=6) == 6
    loo = plan.check_total({"sal": search}, seeds=3, n_train=2, selection="leave_one_env_out", limit=100)
    assert loo == 2 * 3 * 3  # each of two training environments held out, plus the full fit
    with pytest.raises(InvalidParameterError):
        plan.check_total({"sal": search}, seeds=3, n_train=2, selection="oracle", limit=5)
    assert plan.check_total({"sal": {"random": {}, "n_trials": 7}}, seeds=1, n_train=2,
                            selection="oracle", limit=10) == 7  # fmt: skip
    assert plan.check_total({"no-such": search}, seeds=1, n_train=2, selection="oracle", limit=1) == 0


def test_repeats_go_in_one_pass_and_the_first_stays() -> None:
    points = [{"a": i % 3, "b": [1, {"c": 2}]} for i in range(30_000)]
    assert plan.distinct(points) == points[:3]
    assert plan.distinct([{"x": 1, "y": 2}, {"y": 2, "x": 1}]) == [{"x": 1, "y": 2}]
    grid = plan.candidates("ridge", {"grid": {"alpha": [1.0, 2.0, 1.0]}})
    assert [p["alpha"] for p in grid] == [1.0, 2.0]
