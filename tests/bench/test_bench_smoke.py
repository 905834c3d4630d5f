"""Smoke tests: the benchmarks' core functions run end to end on tiny sizes (no timing assertions)."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_paper_run_tiny(tmp_path: Path) -> None:
    config = paper.PaperConfig(
        seeds=2,
        rs=(2.0,),
        radii=(1.0, 10.0),
        confidence_seeds=1,
        n_test_selection=40,
        n_test_anti_causal=40,
        protocol=TINY_FITS,
        selection_kwargs={"n": 200, "test_rs": (-2.0, 2.0)},
        anti_causal_kwargs={"n_train": (60, 20, 20)},
    )
    run = paper.run(config)
    assert [c.key for c in run.selection] == [2.0]
    assert run.anti is not None and run.anti.methods[-1] == "oracle"
    assert run.anti.methods == [*registered(METHODS), "oracle"]
    targets = check(run.selection, run.anti, run.confidence)
    assert all(t.verdict in ("MET", "MISSED", "NOT CHECKED") for t in targets)
    text = render(run, command="python -m bench.paper --test", date="today", machine="test machine")
    for piece in ("Selection bias", "Confidence", "Anti-causal", "e10", "oracle", "## Targets"):
        assert piece in text


def test_paper_rejects_bad_seed_count() -> None:
    with pytest.raises(SystemExit):
        paper.main(["--seeds", "0"])
