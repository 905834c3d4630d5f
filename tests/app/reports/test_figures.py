"""Report figures are real pictures: PNGs of a sensible size that are not blank."""

from __future__ import annotations

import io
from typing import Any

import numpy as np
import pytest
from matplotlib.image import imread

from app.reports import figures as F
from app.reports import job_report, sweep_report
from app.reports.render import draw
from tests.app.reports.conftest import as_public, as_rounds, as_sweep


def assert_real_png(data: bytes, min_size: tuple[int, int] = (600, 300)) -> None:
    """PNG signature, at least ``min_size`` (width, height) pixels, and ink on the page: enough
    non-white pixels in several colours that it is a drawing, not an empty canvas."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pixels = imread(io.BytesIO(data))[..., :3]
    height, width = pixels.shape[:2]
    assert width >= min_size[0] and height >= min_size[1], (width, height)
    ink = (pixels < 0.95).any(axis=2).mean()
    assert 0.02 < ink < 0.9, f"{ink:.1%} of the pixels are not white"
    colours = np.unique((pixels * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 20


def test_each_job_figure_is_drawn(sal_job: dict[str, Any]) -> None:
    figures = draw(job_report(as_public(sal_job)))
    assert set(figures) == {"error-by-environment", "covariate-weights", "coefficients", "training-curves"}
    for _title, fig in figures.values():
        assert_real_png(F.to_png(fig))


def test_each_sweep_figure_is_drawn(sweep_doc: dict[str, Any], sal_job: dict[str, Any]) -> None:
    figures = draw(sweep_report(as_sweep(sweep_doc), {"sal": as_rounds(sal_job["result"]["history"])}))
    assert set(figures) == {"error-by-environment", "covariate-weights", "coefficients", "training-curves"}
    for _title, fig in figures.values():
        assert_real_png(F.to_png(fig))


def test_single_method_weights_separate_large_from_small() -> None:
    fig = F.covariate_weights({"sal": {"S1": 30.0, "S2": 25.0, "V1": 1.0, "V2": 2.0}}, stable=["S1", "S2"])
    bars = fig.axes[0].patches[:4]
    assert [b.get_facecolor() for b in bars[:2]] != [b.get_facecolor() for b in bars[2:]]
    assert bars[0].get_facecolor() == bars[1].get_facecolor()
    assert [t.get_text() for t in fig.axes[0].get_xticklabels()] == ["S1*", "S2*", "V1", "V2"]


def test_training_curves_plot_risk_and_every_covariates_w(sal_job: dict[str, Any]) -> None:
    history = sal_job["result"]["history"]
    fig = F.training_curves(history, ["S1", "S2", "S3", "V1", "V2", "V3"])
    risk_ax, w_ax = fig.axes
    assert len(risk_ax.lines) == 1 and len(risk_ax.lines[0].get_xdata()) == len(history)
    assert len(w_ax.lines) == 6
    assert F.has_curves(history) and not F.has_curves(history[:1])


def test_svg_is_inline_ready() -> None:
    svg = F.to_svg(F.coefficients({"erm": {"a": 1.0, "b": -2.0}}))
    assert svg.startswith("<svg") and svg.rstrip().endswith("</svg>")


@pytest.mark.parametrize("n_methods", [1, 3])
def test_error_by_environment_has_bars_from_zero_per_method(n_methods: int) -> None:
    errors = {f"m{i}": {"e1": 0.4 + 0.1 * i, "e2": 0.5, "e3": 0.6} for i in range(n_methods)}
    fig = F.error_by_environment(errors, "rmse", {m: {"e1": 0.01} for m in errors})
    ax = fig.axes[0]
    assert len(fig.legends[0].get_texts()) == n_methods and ax.get_legend() is None  # not over the bars
    bars = [p for p in ax.patches if p.get_height() > 0]
    assert len(bars) == 3 * n_methods and all(p.get_y() == 0 for p in bars)
    assert ax.get_ylim()[0] == 0.0  # a truncated axis would exaggerate the gaps


def test_w_over_rounds_is_on_a_log_axis_with_distinct_marks() -> None:
    history = [
        {"round": r, "risk": 1.0 / r, "env_losses": {}, "w": [1.0 + 7.2 * r / 10, 1.0, 10.0**r]}
        for r in range(1, 11)
    ]
    fig = F.training_curves(history, ["V1", "V4", "S1"])
    w_ax = fig.axes[1]
    assert w_ax.get_yscale() == "log"
    marks = {(line.get_color(), line.get_marker(), line.get_linestyle()) for line in w_ax.lines}
    assert len(marks) == 3 and len({m[1] for m in marks}) == 3


def test_sweep_w_is_the_median_over_seeds_with_its_range(sweep_doc: dict[str, Any]) -> None:
    """One seed at the cap and two near 1 is shown as ~1 (median), not 3,334 (the mean)."""
    from app.reports.sweep import median_over_seeds

    seeds = [{"V1": 10000.0, "S1": 10000.0}, {"V1": 1.0, "S1": 10000.0}, {"V1": 2.0, "S1": 9000.0}]
    assert median_over_seeds(seeds) == {"V1": (2.0, 1.0, 10000.0), "S1": (10000.0, 9000.0, 10000.0)}
    row = next(r for r in sweep_doc["leaderboard"]["algorithms"] if r.get("covariate_weights"))
    features = list(row["covariate_weights"])
    per_seed = [{f: 1.0 + i for f in features} for i in range(3)]
    report = sweep_report(as_sweep(sweep_doc), None, {row["algorithm"]: per_seed})
    assert "median over seeds" in report.figures["covariate-weights"][0]
    table = next(t for t in report.tables if "median [min, max]" in t.title)
    assert table.rows[0] == [features[0], "2", "1", "3"]
