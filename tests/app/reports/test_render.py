"""Reports as JSON, Markdown and HTML; the HTML renders in headless Chromium with its figures."""

from __future__ import annotations

import base64
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from app.reports import job_report, sweep_report, to_html, to_markdown
from app.reports.report import ORACLE_LABEL
from tests.app.reports.conftest import as_public, as_rounds, as_sweep, sweep_document
from tests.app.reports.test_figures import assert_real_png

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", "--no-first-run", "--hide-scrollbars"]  # fmt: skip


def chromium(*args: str) -> subprocess.CompletedProcess[str]:
    if CHROMIUM is None:
        pytest.skip("chromium is not installed (scripts/test.sh installs it)")
    with tempfile.TemporaryDirectory() as profile:
        return subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args], capture_output=True, text=True,
                              timeout=120, check=True)  # fmt: skip


def test_json_report_lists_data_and_figures(sal_job: dict[str, Any]) -> None:
    data = job_report(as_public(sal_job)).to_json()
    assert data["kind"] == "job" and data["summary"]["metric"] == "rmse"
    assert data["covariate_weights"] == sal_job["result"]["covariate_weights"]
    assert data["figures"] == ["error-by-environment", "covariate-weights", "coefficients", "training-curves"]


def test_markdown_has_tables_and_embedded_pngs(sal_job: dict[str, Any]) -> None:
    text = to_markdown(job_report(as_public(sal_job)))
    assert text.startswith("# Job job-sal-0: sal (regression), succeeded")
    assert "| environment | split | rows | mse | rmse | mae |" in text
    assert "## Reproducibility" in text and "ab" * 32 in text
    images = re.findall(r"!\[([\w-]+)\]\(data:image/png;base64,([A-Za-z0-9+/=]+)\)", text)
    assert [name for name, _ in images] == [
        "error-by-environment",
        "covariate-weights",
        "coefficients",
        "training-curves",
    ]
    for _, data in images:
        assert_real_png(base64.b64decode(data))


def test_a_job_without_a_result_still_reports() -> None:
    report = job_report(as_public({"id": "j", "status": "queued", "algorithm": "erm", "task": "regression", "params": {},
                         "error": None, "result": None, "reproducibility": None}))  # fmt: skip
    assert report.figures == {} and "No result yet" in to_html(report)


def test_oracle_is_labelled_everywhere() -> None:
    report = sweep_report(as_sweep(sweep_document("oracle")))
    assert "(ORACLE)" in report.title and ORACLE_LABEL in report.notes
    assert "Leaderboard (oracle)" in to_markdown(report)
    assert ORACLE_LABEL in to_html(report, "svg")
    plain = sweep_report(as_sweep(sweep_document()))
    assert "oracle" not in to_markdown(plain).lower()


def test_sweep_report_tables(sweep_doc: dict[str, Any]) -> None:
    text = to_markdown(sweep_report(as_sweep(sweep_doc)))
    assert (
        "| rank | algorithm | selected hyper-parameters | Mean_Error | Std_Error | worst | worst environment |"
        in text
    )
    assert "| 1 | sal | lambda_=1 |" in text
    assert "| environment | sal | wdrl | erm |" in text


INSTRUMENT = """<script>window.addEventListener('load', () => {
  const imgs = [...document.querySelectorAll('figure img')];
  document.body.setAttribute('data-figures', imgs.map(i => i.closest('figure').id + ':' + i.naturalWidth + 'x' + i.naturalHeight).join(','));
  document.body.setAttribute('data-svgs', [...document.querySelectorAll('figure svg')].map(s => s.closest('figure').id + ':' + Math.round(s.getBoundingClientRect().width)).join(','));
});</script>"""


@pytest.mark.slow
@pytest.mark.parametrize("figure_format", ["png", "svg"])
def test_html_report_renders_in_headless_chromium(
    sweep_doc: dict[str, Any], sal_job: dict[str, Any], tmp_path: Path, figure_format: str
) -> None:
    html = to_html(
        sweep_report(as_sweep(sweep_doc), {"sal": as_rounds(sal_job["result"]["history"])}), figure_format
    )  # type: ignore[arg-type]
    page = tmp_path / "report.html"
    # the test, not the report, adds a script that records what the browser decoded and laid out
    page.write_text(html.replace("</body>", INSTRUMENT + "</body>"))
    dom = chromium("--virtual-time-budget=5000", "--dump-dom", page.as_uri()).stdout
    names = ["fig-error-by-environment", "fig-covariate-weights", "fig-coefficients", "fig-training-curves"]
    assert "<table>" in dom and "Leaderboard" in dom
    if figure_format == "png":
        decoded = dict(
            item.split(":") for item in re.search(r'data-figures="([^"]*)"', dom).group(1).split(",")
        )  # type: ignore[union-attr]
        assert list(decoded) == names
        for size in decoded.values():
            width, height = map(int, size.split("x"))
            assert width >= 600 and height >= 300, decoded  # decoded by the browser, not a broken image
    else:
        laid_out = dict(
            item.split(":") for item in re.search(r'data-svgs="([^"]*)"', dom).group(1).split(",")
        )  # type: ignore[union-attr]
        assert list(laid_out) == names and all(int(w) > 300 for w in laid_out.values()), laid_out
    shot = tmp_path / "shot.png"
    chromium("--window-size=1100,2400", f"--screenshot={shot}", page.as_uri())
    assert_real_png(shot.read_bytes(), min_size=(1000, 2000))


def test_job_report_names_the_run_its_data_selection_and_certificate(sal_job: dict[str, Any]) -> None:
    job = {**sal_job, "name": "walkthrough", "tags": ["paper", "sal"], "dataset_id": "ds-1"}
    result = dict(job["result"])
    result["certificate"] = {"rho_hat": 4.864, "worst_case_risk": 0.214}
    result["selection"] = {
        "parameter": "lambda_", "criterion": "worst_env_validation_rmse",
        "candidates": [{"relative": 0.001, "lambda_": 0.00025, "score": 0.465}, {"relative": None, "lambda_": 0.0, "score": 0.52}],
        "chosen": {"relative": 0.001, "lambda_": 0.00025, "score": 0.465},
    }  # fmt: skip
    tables = {t.title: t for t in job_report(as_public({**job, "result": result})).tables}
    run = dict(tables["Run"].rows)
    assert run["name"] == "walkthrough" and run["tags"] == "paper, sal" and run["dataset"] == "ds-1"
    assert tables["Certificate (Theorem 1)"].rows == [["4.864", "0.214"]]
    assert ["criterion", "worst_env_validation_rmse"] in tables["Selection of lambda_"].rows
    candidates = tables["Candidates for lambda_ (the chosen one marked *)"].rows
    assert [r[0] for r in candidates] == ["*", ""] and candidates[0][1:] == ["0.001", "0.00025", "0.465"]
    text = to_markdown(job_report(as_public({**job, "result": result})))
    assert "Selection of lambda_" in text and "Certificate (Theorem 1)" in text


def test_job_report_shows_w_over_folds_and_which_w_the_data_determine(sal_job: dict[str, Any]) -> None:
    """lambda_='auto' records w's range over the fold fits and the covariates y depends on; the
    report's parameter table shows both beside θ and w (issue 18)."""
    result = dict(sal_job["result"])
    features = list(result["coefficients"])
    p = len(features)
    evidence = {"low": [1.0 + i for i in range(p)], "high": [10.0 + i for i in range(p)],
                "determined": [i % 2 == 0 for i in range(p)], "note": "..."}  # fmt: skip
    rows = {}
    for selection in (
        {"parameter": "lambda_", "covariate_weights": evidence},  # linear SAL
        {"covariate_weights": {"source": "linear", "selection": {"covariate_weights": evidence}}},
    ):  # MLP
        tables = {
            t.title: t
            for t in job_report(as_public({**sal_job, "result": {**result, "selection": selection}})).tables
        }
        table = tables["Learned parameters per covariate"]
        assert table.columns[-2:] == ["w over folds", "w determined by the data"]
        rows = {r[0]: r for r in table.rows}
        for i, f in enumerate(features):
            assert rows[f][3] == f"{1.0 + i:.4g} – {10.0 + i:.4g}" and rows[f][4] == (
                "yes" if i % 2 == 0 else "no"
            )
    plain = job_report(as_public({**sal_job, "result": {**result, "selection": None}})).tables
    assert next(t for t in plain if t.title == "Learned parameters per covariate").columns == [
        "covariate",
        "θ",
        "w",
    ]


def test_job_report_compares_the_job_with_erm_and_says_whether_the_rows_can_tell(
    sal_job: dict[str, Any],
) -> None:
    """result.reference becomes a table: ERM's Mean_Error, the difference, its standard error and a
    verdict that says "within noise" up to two standard errors."""
    result = dict(sal_job["result"])
    cases = [(-0.07, 0.004, "better than ERM"), (0.003, 0.002, "within noise (≤ 2 standard errors)"),
             (0.05, 0.01, "worse than ERM")]  # fmt: skip
    for difference, se, verdict in cases:
        reference = {"algorithm": "erm", "metric": "rmse", "mean_error": 0.52, "difference": difference,
                     "standard_error": se}  # fmt: skip
        report = job_report(as_public({**sal_job, "result": {**result, "reference": reference}}))
        table = {t.title: t for t in report.tables}["Against ERM on the same test rows"]
        assert table.rows[0][0] == "rmse" and table.rows[0][-1] == verdict
        assert float(table.rows[0][2]) == pytest.approx(difference, rel=1e-3)
    assert sal_job["result"]["reference"] is None
    assert not [t.title for t in job_report(as_public(sal_job)).tables if t.title.startswith("Against")]
