"""app.sweeps: expanding a request into trials, and selecting from their outcomes (pure)."""

from __future__ import annotations

from typing import Any

import pytest

from app.sweeps import TrialOutcome, candidates, leaderboard, plan_trials
from sal_core import InvalidParameterError, get_algorithm


def test_default_grid_comes_from_sal_core() -> None:
    space = get_algorithm("ridge").params_type.search_space()
    assert candidates("ridge", {}) == [{"lambda_": v} for v in space["lambda_"]]
    assert candidates("erm", {}) == [{}]  # no search space: one trial at the defaults


def test_grid_is_a_product_with_fixed_params_and_no_repeats() -> None:
    points = candidates("wdrl", {"grid": {"lambda_": [1.0, 2.0, 1.0]}, "params": {"steps": 50}})
    assert points == [{"steps": 50, "lambda_": 1.0}, {"steps": 50, "lambda_": 2.0}]


def test_random_search_is_seeded_and_in_range() -> None:
    spec: dict[str, Any] = {"random": {"lambda_": {"low": 1e-3, "high": 10.0, "log": True}}, "n_trials": 5}
    a, b = candidates("lasso", spec, 3), candidates("lasso", spec, 3)
    assert a == b and len(a) == 5
    assert all(1e-3 <= p["lambda_"] <= 10.0 for p in a)
    assert candidates("lasso", spec, 4) != a
    sampled = candidates("irm", {"random": {}, "n_trials": 3})  # from the default grid, distinct
    grid = get_algorithm("irm").params_type.search_space()["penalty_weight"]
    assert len(sampled) == 3 and all(p["penalty_weight"] in grid for p in sampled)


@pytest.mark.parametrize(
    ("search", "field"),
    [
        ({"random": {"lambda_": [1.0]}}, "algorithms.ridge.n_trials"),
        ({"n_trials": 3}, "algorithms.ridge.n_trials"),
        ({"grid": {"lambda_": []}}, "algorithms.ridge.grid.lambda_"),
        ({"grid": {}, "random": {}, "n_trials": 1}, "algorithms.ridge"),
        (
            {"random": {"lambda_": {"low": 0.0, "high": 1.0, "log": True}}, "n_trials": 1},
            "algorithms.ridge.random.lambda_",
        ),
        ({"grid": {"lambda_": list(range(1, 1001)), "steps": list(range(1, 1001))}}, "algorithms.ridge.grid"),
    ],
)
def test_bad_searches_name_their_field(search: dict[str, Any], field: str) -> None:
    with pytest.raises(InvalidParameterError) as err:
        candidates("ridge", search)
    assert err.value.field == field


def test_trials_per_selection_policy() -> None:
    algorithms = {"ridge": [{"lambda_": 0.1}, {"lambda_": 1.0}], "erm": [{}]}
    common = {
        "algorithms": algorithms,
        "seeds": [0, 1],
        "train_environments": ["a", "b", "c"],
        "validation_fraction": 0.2,
    }
    tv = plan_trials(selection="train_env_validation", **common)
    assert len(tv) == 3 * 2 and all(t.validation == {"fraction": 0.2} and t.fold is None for t in tv)
    oracle = plan_trials(selection="oracle", **common)
    assert len(oracle) == 6 and all(t.validation is None for t in oracle)
    loeo = plan_trials(selection="leave_one_env_out", **common)
    assert len(loeo) == 6 * (3 + 1)
    folds = [t for t in loeo if t.fold is not None]
    assert {(t.fold, tuple(t.train_environments)) for t in folds} == {
        ("a", ("b", "c")), ("b", ("a", "c")), ("c", ("a", "b"))
    }  # fmt: skip
    assert all(t.validation == {"environments": [t.fold]} for t in folds)


def _result(val: float, test: dict[str, float], w: list[float] | None = None) -> dict[str, Any]:
    errors = list(test.values())
    return {
        "environments": [
            {"name": k, "split": "test", "n_rows": 10, "rmse": v, "mse": v * v, "mae": v}
            for k, v in test.items()
        ],
        "summary": {
            "metric": "rmse",
            "mean_error": sum(errors) / len(errors),
            "std_error": 0.0,
            "worst_error": max(errors),
            "worst_environment": max(test, key=test.__getitem__),
        },  # fmt: skip
        "validation": {"metric": "mse", "error": val, "n_rows": 5, "environments": []},
        "coefficients": {"x1": 1.0, "x2": 2.0},
        "covariate_weights": None if w is None else {"x1": w[0], "x2": w[1]},
        # the rest of a JobResult, which TrialOutcome reads its result as
        "intercept": 0.0, "certificate": None, "history": [], "duration_s": 0.1, "device": "cpu",
    }  # fmt: skip


def _outcome(i: int, algorithm: str, params: dict[str, Any], seed: int, result: dict[str, Any] | None,
             status: str = "succeeded", fold: str | None = None) -> TrialOutcome:  # fmt: skip
    return TrialOutcome(f"j{i}", algorithm, params, seed, fold, status, result)


def test_selection_picks_the_lowest_mean_validation_error_and_ranks_by_test_error() -> None:
    small, large = {"lambda_": 0.1}, {"lambda_": 1.0}
    trials = [
        # ridge: lambda 1.0 has the lower validation error on average (0.15 vs 0.2) but a worse test error
        _outcome(1, "ridge", small, 0, _result(0.1, {"t1": 0.5, "t2": 0.7})),
        _outcome(2, "ridge", small, 1, _result(0.3, {"t1": 0.5, "t2": 0.7})),
        _outcome(3, "ridge", large, 0, _result(0.15, {"t1": 0.6, "t2": 0.8})),
        _outcome(4, "ridge", large, 1, _result(0.15, {"t1": 0.8, "t2": 1.0})),
        _outcome(5, "sal", {}, 0, _result(0.5, {"t1": 0.4, "t2": 0.45}, [3.0, 1.0])),
        _outcome(6, "sal", {}, 1, _result(0.5, {"t1": 0.4, "t2": 0.45}, [5.0, 1.0])),
    ]
    board = leaderboard(selection="train_env_validation", algorithms={"ridge": [small, large], "sal": [{}]},
                        seeds=[0, 1], trials=trials)  # fmt: skip
    assert [r["algorithm"] for r in board["algorithms"]] == ["sal", "ridge"]
    ridge = board["algorithms"][1]
    assert ridge["selected_params"] == large and ridge["selection_score"] == pytest.approx(0.15)
    assert ridge["searched_params"] == large
    assert ridge["jobs"] == ["j3", "j4"]
    assert ridge["mean_error"]["mean"] == pytest.approx(0.8)
    assert ridge["mean_error"]["std"] == pytest.approx(0.1 * 2**0.5)  # sample std of 0.7 and 0.9
    assert ridge["environments"]["t2"]["mean"] == pytest.approx(0.9)
    assert ridge["worst_environment"] == "t2"
    assert board["algorithms"][0]["covariate_weights"] == {"x1": 4.0, "x2": 1.0}
    assert board["oracle"] is False and board["note"] is None

    oracle = leaderboard(
        selection="oracle", algorithms={"ridge": [small, large]}, seeds=[0, 1], trials=trials[:4]
    )
    assert oracle["algorithms"][0]["selected_params"] == small  # the test error decides
    assert oracle["oracle"] is True and "oracle" in oracle["note"]


def test_a_candidate_with_a_failed_trial_does_not_compete() -> None:
    a, b = {"lambda_": 0.1}, {"lambda_": 1.0}
    trials = [
        _outcome(1, "ridge", a, 0, _result(0.01, {"t": 0.5})),
        _outcome(2, "ridge", a, 1, None, status="failed"),
        _outcome(3, "ridge", b, 0, _result(0.2, {"t": 0.6})),
        _outcome(4, "ridge", b, 1, _result(0.2, {"t": 0.6})),
        _outcome(5, "irm", {}, 0, None, status="failed"),
    ]
    board = leaderboard(
        selection="train_env_validation",
        algorithms={"ridge": [a, b], "irm": [{}]},
        seeds=[0, 1],
        trials=trials,
    )
    (ridge,) = board["algorithms"]
    assert ridge["selected_params"] == b and ridge["failed_trials"] == 1
    assert ridge["candidates"] == [{"params": a, "score": None}, {"params": b, "score": pytest.approx(0.2)}]
    assert "irm" in board["unselected"]


def test_leave_one_env_out_averages_folds_and_reports_the_full_fit() -> None:
    a, b = {"lambda_": 0.1}, {"lambda_": 1.0}
    trials = []
    for i, (params, fold_errors) in enumerate(((a, (0.1, 0.5)), (b, (0.2, 0.2)))):
        trials += [_outcome(10 * i + k, "ridge", params, 0, _result(e, {"t": 9.0}), fold=f) for k, (f, e) in
                   enumerate(zip(("e1", "e2"), fold_errors, strict=True))]  # fmt: skip
        trials.append(_outcome(10 * i + 9, "ridge", params, 0, _result(99.0, {"t": 0.3 + i})))
    board = leaderboard(selection="leave_one_env_out", algorithms={"ridge": [a, b]}, seeds=[0], trials=trials)
    (ridge,) = board["algorithms"]
    assert ridge["selected_params"] == b and ridge["selection_score"] == pytest.approx(0.2)
    assert ridge["jobs"] == ["j19"] and ridge["mean_error"] == {"mean": pytest.approx(1.3), "std": 0.0}


def test_train_env_worst_selects_by_the_worst_held_out_environment() -> None:
    """Pooled validation prefers the candidate that is good on the big environment; the worst-environment
    policy (SAL's own lambda_='auto' criterion) prefers the one that holds on every environment."""
    common = {"algorithms": {"ridge": [{"lambda_": 0.1}]}, "seeds": [0], "train_environments": ["a", "b"]}
    assert plan_trials(selection="train_env_worst", validation_fraction=0.2, **common)[0].validation == {
        "fraction": 0.2
    }

    def result(pooled: float, worst: float) -> dict[str, Any]:
        r = _result(pooled, {"t1": 0.5})
        r["validation"]["worst_error"] = worst
        return r

    small, large = {"lambda_": 0.1}, {"lambda_": 10.0}
    trials = [
        _outcome(1, "ridge", small, 0, result(pooled=1.0, worst=3.0)),
        _outcome(2, "ridge", large, 0, result(pooled=1.2, worst=1.5)),
    ]
    pick = {}
    for selection in ("train_env_validation", "train_env_worst"):
        board = leaderboard(
            selection=selection, algorithms={"ridge": [small, large]}, seeds=[0], trials=trials
        )
        pick[selection] = board["algorithms"][0]["selected_params"]
    assert pick == {"train_env_validation": small, "train_env_worst": large}
