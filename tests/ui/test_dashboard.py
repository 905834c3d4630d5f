"""The dashboard in headless Chromium against a real API (keys required) and Celery worker on
PostgreSQL + Redis: upload, submit SAL from the form, watch it finish, read its charts, cancel a
running job, compare a small sweep, and a second tenant's view. Each page is screenshotted (into
docs/screenshots/ only with SAL_UI_SCREENSHOTS=1; see tests/ui/conftest.py). The tests run in file order and share the state they make (one session)."""

from __future__ import annotations

import datetime as dt
import json
import re
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from sal_core import synthetic
from tests.e2e import scenario
from tests.ui.conftest import drawn, go, screenshot, sign_in

pytestmark = [pytest.mark.services, pytest.mark.slow]

TERMINAL = ("succeeded", "failed", "cancelled")


@pytest.fixture(scope="module")
def setting() -> synthetic.Setting:
    # 400 rows: the slopes test tells the training environments apart (p < 10⁻⁴), so SAL keeps a robust
    # candidate and its w is shown; at 300 rows it found them alike (p = 0.09) and SAL kept ERM's fit
    return synthetic.selection_bias(n=400, n_test=100, p=6, seed=11, test_rs=(-3.0, 3.0))


@pytest.fixture(scope="module")
def state() -> dict[str, Any]:
    """Ids made by one test and used by the next."""
    return {}


@pytest.fixture(scope="module")
def page(browser: Any, ui_server: str, tenant_keys: dict[str, str]) -> Any:
    page = sign_in(browser, ui_server, tenant_keys["a"])
    yield page
    page.context.close()


@pytest.fixture(scope="module")
def api_a(ui_server: str, tenant_keys: dict[str, str]) -> Any:
    with httpx.Client(base_url=ui_server, headers={"Authorization": f"Bearer {tenant_keys['a']}"}) as c:
        yield c


def wait_status(page: Any, status: str, timeout_s: float = 60) -> None:
    page.locator(f".job-status [data-status='{status}']").wait_for(timeout=timeout_s * 1000)


def figure_rows(page: Any, chart: str) -> list[list[str]]:
    """The numbers table under a chart: one list of cell texts per row."""
    rows = page.locator(f"[data-chart='{chart}'] details table tbody tr")
    return [
        [c.strip() for c in rows.nth(i).locator("th, td").all_text_contents()] for i in range(rows.count())
    ]


def svg_labels(page: Any, chart: str) -> list[str]:
    return [t.strip() for t in page.locator(f"[data-chart='{chart}'] svg .bar-label").all_text_contents()]


def test_shell_and_assets_need_no_key_and_hold_no_data(ui_server: str) -> None:
    shell = httpx.get(f"{ui_server}/ui")
    assert shell.status_code == 200 and "text/html" in shell.headers["content-type"]
    assert "script-src 'self'" in shell.headers["content-security-policy"]
    for name in ("app.js", "charts.js", "style.css"):
        assert httpx.get(f"{ui_server}/ui/static/{name}").status_code == 200
    assert httpx.get(f"{ui_server}/ui/static/..%2Fapp.js").status_code == 404
    assert httpx.get(f"{ui_server}/ui/static/routes.py").status_code == 404
    assert "/ui" not in httpx.get(f"{ui_server}/openapi.json").json()["paths"]


def test_upload_a_csv(page: Any, setting: synthetic.Setting, state: dict[str, Any]) -> None:
    csv = scenario.to_csv(setting)
    page.locator("#upload-file").set_input_files(
        {"name": "selection.csv", "mimeType": "text/csv", "buffer": csv}
    )
    # The CSV header fills the column pickers.
    page.locator("select#upload-target option[value='outcome']").wait_for(state="attached")
    page.get_by_label("Target column", exact=True).select_option("outcome")
    page.get_by_label("Environment column", exact=True).select_option("site")
    # A bad feature list is the API's 422, shown next to the form and naming the field.
    page.get_by_label("Features (optional)", exact=True).fill("S1,nope")
    page.get_by_role("button", name="Upload").click()
    alert = page.locator("form .problem[role=alert]")
    alert.wait_for()
    assert "422" in alert.inner_text() and "nope" in alert.inner_text()
    assert page.locator("#upload-features[aria-invalid=true]").count() == 1

    page.get_by_label("Features (optional)", exact=True).fill("")
    page.get_by_label("Name (optional)", exact=True).fill("selection-bias")
    page.get_by_role("button", name="Upload").click()
    page.locator("form .ok").wait_for()
    n_rows = sum(len(e.y) for e in (*setting.train, *setting.test))
    assert f"{n_rows} rows, 4 environments, 6 features" in page.locator("form .ok").inner_text()
    link = page.locator("#datasets-table a", has_text="selection-bias")
    link.wait_for()
    screenshot(page, "datasets")

    link.click()
    page.get_by_role("heading", name=re.compile("Dataset selection-bias")).wait_for()
    envs = figure_rows(page, "rows")
    assert [r[0] for r in envs] == [e.name for e in (*setting.train, *setting.test)]
    assert [int(r[1]) for r in envs] == [len(e.y) for e in (*setting.train, *setting.test)]
    columns = page.locator("#columns-table tbody th").all_inner_texts()
    assert columns == [*setting.feature_names, "outcome"]
    state["dataset_id"] = page.evaluate("location.hash").split("/")[-1]
    screenshot(page, "dataset")


def test_a_dataset_page_says_how_its_text_and_gaps_were_encoded(page: Any, api_a: httpx.Client) -> None:
    csv = "env,x,region,label\n" + "".join(
        f"{e},{'' if (e, i) == ('a', 5) else i % 7},{'' if (e, i) == ('b', 7) else ['east', 'north', 'south'][i % 3]},"
        f"{['no', 'yes'][i % 2]}\n"
        for e in ("a", "b")
        for i in range(12)
    )
    uploaded = api_a.post(
        "/datasets",
        files={"file": ("text.csv", csv.encode(), "text/csv")},
        data={"target": "label", "environment": "env"},
    )
    assert uploaded.status_code in (200, 201), uploaded.text
    go(page, f"#/datasets/{uploaded.json()['id']}")
    page.locator("#columns-table").wait_for()
    roles = dict(zip(
        page.locator("#columns-table tbody th").all_inner_texts(),
        page.locator("#columns-table tbody td").all_inner_texts(),
        strict=True,
    ))  # fmt: skip
    assert roles == {
        "x": f"feature (missing cells hold its mean, {57 / 23:.6g})",  # 62 - 5, over 23 cells
        "x is missing": "feature: 1 where x is missing",
        "region=north": "feature: 1 where region is north (text column; reference east)",
        "region=south": "feature: 1 where region is south (text column; reference east)",
        "region is missing": "feature: 1 where region is missing",
        "label": "target: no is 0, yes is 1",
    }


def test_submit_sal_from_the_form_and_watch_it_finish(
    page: Any, api_a: httpx.Client, setting: synthetic.Setting, state: dict[str, Any]
) -> None:
    go(page, f"#/submit?dataset={state['dataset_id']}")
    page.get_by_role("heading", name="Submit a job").wait_for()
    page.get_by_label("Algorithm", exact=True).select_option("sal")
    # The form is built from GET /algorithms: every parameter with its doc, range and default.
    for p in next(a for a in api_a.get("/algorithms").json() if a["name"] == "sal")["params"]:
        field = page.locator(f"#param-{p['name']}")
        assert field.count() == 1, p["name"]
        shown = field.input_value()
        if isinstance(p["default"], bool):  # a select of "true" / "false"
            assert p["type"] == "boolean" and shown == str(p["default"]).lower(), p["name"]
        else:
            numeric = p["type"] in ("number", "integer") or isinstance(p["default"], (int, float))
            assert (float(shown) if numeric else shown) == p["default"], p["name"]
        assert p["doc"][:20] in (page.locator(f"#param-{p['name']}-hint").text_content() or "")
    # The few that matter are shown; the rest wait under "Advanced", closed, at their defaults.
    assert page.locator("#param-lambda_").is_visible() and page.locator("#param-rounds").is_visible()
    advanced = page.locator("#advanced-params")
    assert advanced.get_attribute("open") is None and not page.locator("#param-selection_se").is_visible()
    advanced.locator("summary").click()
    assert page.locator("#param-selection_se").is_visible()
    train = page.locator("#fs-train_environments")
    for env in setting.train:
        train.get_by_label(re.compile(re.escape(env.name) + r" \(")).check()
    page.locator("#param-rounds").fill("400")  # the exact path's own; lambda_='auto' then keeps SAL here
    screenshot(page, "submit")
    page.get_by_role("button", name="Submit job").click()
    page.locator("#main[data-route^='#/jobs/'], form .problem").first.wait_for()
    assert page.locator("form .problem").count() == 0, page.locator("form .problem").inner_text()
    job_id = page.evaluate("location.hash").split("/")[-1]
    state["sal_job"] = job_id
    wait_status(page, "succeeded")

    job = api_a.get(f"/jobs/{job_id}").json()
    assert job["params"].get("rounds") == 400 and job["train_environments"] == [e.name for e in setting.train]
    result = job["result"]
    names = list(setting.feature_names)
    # w and θ charts carry the covariates' names, one bar each, with the API's numbers.
    page.locator("[data-chart='weights'] svg").wait_for()
    assert svg_labels(page, "weights") == names == list(result["covariate_weights"])
    assert svg_labels(page, "coefficients") == names
    weights = figure_rows(page, "weights")
    evidence = result["selection"]["covariate_weights"]  # lambda_='auto': w's range and determined flags
    for (name, shown, span, verdict), value, low, high, determined in zip(
        weights, result["covariate_weights"].values(), evidence["low"], evidence["high"], evidence["determined"],
        strict=True,
    ):  # fmt: skip
        assert float(shown) == pytest.approx(value, rel=5e-3, abs=1e-9), name
        shown_low, shown_high = (float(v) for v in span.split(" – "))
        assert (shown_low, shown_high) == pytest.approx((low, high), rel=5e-3, abs=1e-9), name
        # a covariate y does not depend on gets no stable/unstable verdict (issue 18)
        assert verdict == "not determined" if not determined else verdict in ("stable", "unstable", "uniform")
    theta = {r[0]: float(r[1]) for r in figure_rows(page, "coefficients")}
    assert theta == pytest.approx(result["coefficients"], rel=5e-3, abs=1e-3)
    assert page.locator("[data-chart='weights'] svg .bar").count() == len(names)
    # Stable vs unstable is written beside each bar, not only patterned.
    notes = page.locator("[data-chart='weights'] svg .bar-note").all_text_contents()
    assert notes == [r[3] for r in weights]
    judged = {
        n: v
        for (n, v), d in zip(result["covariate_weights"].items(), evidence["determined"], strict=True)
        if d
    }
    if len(judged) > 1 and max(judged.values()) >= 2 * min(judged.values()):
        verdicts = {r[0]: r[3] for r in weights}
        assert verdicts[max(judged, key=judged.get)] == "stable"  # type: ignore[arg-type]
        assert verdicts[min(judged, key=judged.get)] == "unstable"  # type: ignore[arg-type]
    # Per-environment error, train and test, and the risk per round.
    envs = {r[0]: r[1] for r in figure_rows(page, "environments")}
    assert envs == {e["name"]: e["split"] for e in result["environments"]}
    assert len(figure_rows(page, "history")) == len(result["history"]) >= 1
    assert page.locator("[data-chart='history'] svg circle.point[data-series='risk']").count() == len(
        result["history"]
    )
    assert page.locator("#mean-error").inner_text() != "–"
    # Against ERM on the same test rows: the sign, ERM's own Mean_Error and the verdict the noise allows.
    ref = result["reference"]
    versus = page.locator("#vs-erm").inner_text()
    noise = abs(ref["difference"]) <= 2 * ref["standard_error"]
    verdict = "within noise" if noise else "better than ERM" if ref["difference"] < 0 else "worse than ERM"
    assert versus.startswith("+" if ref["difference"] >= 0 else "−") and f"; {verdict})" in versus, versus
    # How lambda_="auto" chose: the selection's own reason, and the slopes test that decided the rule.
    choice = page.locator("#lambda-choice").inner_text()
    assert choice.startswith(result["selection"]["reason"][:40]) and "slopes test p = " in choice, choice
    assert "Certificate" in page.locator("#main").inner_text()
    assert job["reproducibility"]["dataset_sha256"] in page.locator("#main").inner_text()
    screenshot(page, "job")

    with page.expect_download() as download:
        page.locator("#job-weights").click()
    path = download.value.path()
    assert download.value.suggested_filename.endswith(".safetensors")
    assert Path(path).read_bytes() == api_a.get(f"/jobs/{job_id}/weights").content


def test_cancel_a_running_job(
    page: Any, api_a: httpx.Client, setting: synthetic.Setting, state: dict[str, Any]
) -> None:
    body = {
        "dataset_id": state["dataset_id"], "algorithm": "sal", "train_environments": [e.name for e in setting.train],
        "params": {"rounds": 40_000, "lambda_": 0.1, "w_lr": 0.3}, "seed": 1,  # under max_job_work
    }  # fmt: skip
    response = api_a.post("/jobs", json=body)
    assert response.status_code == 202, response.text
    job_id = response.json()["id"]
    go(page, f"#/jobs/{job_id}")
    wait_status(page, "running")
    page.locator("#job-progress").wait_for()
    # The running job's rounds are drawn as they come, from its event stream.
    page.locator("[data-chart='live'] svg circle.point").first.wait_for()
    assert len(figure_rows(page, "live")) >= 1
    page.get_by_role("button", name="Cancel").click()
    wait_status(page, "cancelled", timeout_s=30)
    assert page.locator("#job-cancel").is_disabled()
    assert api_a.get(f"/jobs/{job_id}").json()["status"] == "cancelled"
    state["cancelled_job"] = job_id


def test_jobs_list_filters(page: Any, state: dict[str, Any]) -> None:
    go(page, "#/jobs")
    page.locator("#jobs-table").wait_for()
    assert page.locator("#jobs-table tbody tr").count() == 2
    page.get_by_label("Status", exact=True).select_option("cancelled")
    drawn(page, "status=cancelled")
    page.locator("#jobs-table tbody tr").first.wait_for()
    rows = page.locator("#jobs-table tbody tr")
    assert rows.count() == 1 and state["cancelled_job"][:8] in rows.inner_text()
    go(page, f"#/jobs?dataset_id={state['dataset_id']}&algorithm=sal")
    assert page.locator("#jobs-table tbody tr").count() == 2
    screenshot(page, "jobs")


def test_compare_a_small_sweep(
    page: Any, api_a: httpx.Client, setting: synthetic.Setting, state: dict[str, Any]
) -> None:
    go(page, "#/sweeps")
    page.get_by_role("heading", name="Start a sweep").wait_for()
    sweep = {
        "dataset_id": state["dataset_id"], "train_environments": [e.name for e in setting.train],
        "algorithms": {"erm": {}, "ridge": {"grid": {"lambda_": [0.01, 10.0]}}}, "seeds": [0, 1],
        "selection": "train_env_validation", "device": "cpu",
    }  # fmt: skip
    page.locator("#sweep-json summary").click()  # the request as JSON, under Advanced
    page.get_by_label(re.compile("Sweep request")).fill(json.dumps(sweep))
    page.get_by_role("button", name="Start sweep").click()
    page.wait_for_url(re.compile(r"#/sweeps/[0-9a-f-]+$"))
    sweep_id = page.evaluate("location.hash").split("/")[-1]
    state["sweep"] = sweep_id
    page.locator("#leaderboard").wait_for(timeout=90_000)
    board = api_a.get(f"/sweeps/{sweep_id}").json()["leaderboard"]
    assert "train_env_validation" in page.locator("#selection-policy").inner_text()
    rows = page.locator("#leaderboard tbody tr")
    assert rows.count() == len(board["algorithms"]) == 2
    for i, row in enumerate(board["algorithms"]):
        cells = rows.nth(i).locator("th, td").all_inner_texts()
        assert cells[1] == row["algorithm"] and "±" in cells[2]
        assert float(cells[2].split("±")[0]) == pytest.approx(row["mean_error"]["mean"], rel=5e-3)
    comparison = figure_rows(page, "sweep-environments")
    assert [r[0] for r in comparison] == [e.name for e in setting.test]
    assert svg_labels(page, "sweep-environments") == [e.name for e in setting.test]
    screenshot(page, "sweep")
    # Each trial links to its job page.
    first = board["algorithms"][0]["jobs"][0]
    page.locator(f"#leaderboard a[href='#/jobs/{first}']").click()
    wait_status(page, "succeeded")
    go(page, "#/sweeps")
    page.locator("#sweeps-table").wait_for()
    screenshot(page, "sweeps")


def test_a_second_tenant_sees_404_and_the_key_stays_in_memory(
    browser: Any, ui_server: str, tenant_keys: dict[str, str], state: dict[str, Any]
) -> None:
    other = sign_in(browser, ui_server, tenant_keys["b"])
    try:
        for hash_ in (
            f"#/jobs/{state['sal_job']}",
            f"#/datasets/{state['dataset_id']}",
            f"#/sweeps/{state['sweep']}",
        ):
            go(other, hash_)
            other.locator("#not-found").wait_for()
            assert other.get_by_role("heading", name="Not found").count() == 1
        go(other, "#/jobs")
        other.get_by_text("No jobs match.").wait_for()
        go(other, "#/datasets")
        other.get_by_text("No datasets yet").wait_for()
        # The key is nowhere but the page's memory.
        key = tenant_keys["b"]
        assert key not in other.url
        assert other.evaluate("localStorage.length + sessionStorage.length") == 0
        assert other.context.cookies() == []
        assert key not in other.content()
        # A reload forgets it: the page asks again.
        other.reload()
        other.get_by_label("API key", exact=True).wait_for()
        other.get_by_label("API key", exact=True).fill("sal_not-a-key")
        other.get_by_role("button", name="Use key").click()
        other.get_by_text("The key was refused").wait_for()
        screenshot(other, "sign-in")
    finally:
        other.context.close()


def test_pages_have_labels_and_one_heading(page: Any, state: dict[str, Any]) -> None:
    """Every form control has a label, and each page one h1 (a keyboard and screen-reader check)."""
    unlabelled = """() => [...document.querySelectorAll('#main input, #main select, #main textarea')]
        .filter(n => n.type !== 'hidden' && !(n.labels && n.labels.length) && !n.getAttribute('aria-label'))
        .map(n => n.id || n.name)"""
    for hash_ in (
        "#/datasets",
        "#/submit",
        "#/jobs",
        "#/sweeps",
        f"#/jobs/{state['sal_job']}",
        f"#/sweeps/{state['sweep']}",
    ):
        go(page, hash_)
        assert page.evaluate(unlabelled) == [], hash_
        assert page.locator("#main h1").count() == 1, hash_


def test_bar_charts_use_a_log_scale_and_patterns(page: Any) -> None:
    """w spanning decades is drawn on decades (10^k ticks); series differ by pattern, and each bar
    carries its printed value, so nothing is read from colour alone."""
    drawn_chart = """() => {
        const svg = Charts.bars({title: "w", categories: ["S1", "V1"], series: [{name: "w", values: [10000, 1]}],
                                 log: true, barPattern: (i) => i, notes: ["stable", "unstable"]});
        const grouped = Charts.bars({title: "e", categories: ["a"], series: [{name: "erm", values: [0.5]}, {name: "sal", values: [0.4]}]});
        return {
            ticks: [...svg.querySelectorAll(".axis text")].map((t) => t.textContent),
            values: [...svg.querySelectorAll(".bar-value")].map((t) => t.textContent),
            fills: [...grouped.querySelectorAll(".bar")].map((r) => r.getAttribute("fill")),
            patterns: [...grouped.querySelectorAll("pattern")].map((p) => p.childElementCount),
        };
    }"""
    got = page.evaluate(drawn_chart)
    assert got["ticks"][:5] == ["1", "10^1", "10^2", "10^3", "10^4"] and "w (log scale)" not in got["ticks"]
    assert any("log scale" in t for t in got["ticks"])
    assert got["values"] == ["10000", "1"]
    assert len(set(got["fills"])) == 2 and got["patterns"][1] > 1  # the second series is hatched


def test_the_jobs_page_pages_past_100_jobs(
    page: Any, api_a: httpx.Client, pg_engine: Any, state: dict[str, Any]
) -> None:
    """105 jobs with one tag: the list shows 50, then each "Load more" the next page, to the end."""
    from sqlalchemy.orm import Session

    from app.db.models import Job

    with Session(pg_engine) as session:
        model = session.get(Job, state["cancelled_job"])
        assert model is not None
        columns = {c.key: getattr(model, c.key) for c in Job.__table__.columns}
        for i in range(105):
            session.add(Job(**{**columns, "id": f"00000000-bulk-{i:04d}-0000-{uuid.uuid4().hex[:12]}",
                               "name": f"bulk {i}", "tags": ["bulk"], "status": "failed",
                               "created_at": model.created_at - dt.timedelta(seconds=i + 1)}))  # fmt: skip
        session.commit()
    go(page, "#/jobs?tag=bulk")
    rows = page.locator("#jobs-table tbody tr")
    rows.first.wait_for()
    assert rows.count() == 50
    for shown in (100, 105):
        page.locator("#jobs-more").click()
        rows.nth(shown - 1).wait_for()
        assert rows.count() == shown
    assert page.locator("#jobs-more").count() == 0 and page.locator("#jobs-all").count() == 1
    assert "bulk 104" in rows.nth(104).inner_text()


def test_an_mlp_jobs_curve_and_comparing_two_jobs(
    page: Any, api_a: httpx.Client, setting: synthetic.Setting, state: dict[str, Any]
) -> None:
    body = {"dataset_id": state["dataset_id"], "algorithm": "sal", "train_environments": [e.name for e in setting.train],
            "model": {"kind": "mlp", "hidden": [8]}, "name": "mlp run", "tags": ["ui-compare"], "device": "cpu"}  # fmt: skip
    response = api_a.post("/jobs", json=body)
    assert response.status_code == 202, response.text
    mlp = response.json()["id"]
    go(page, f"#/jobs/{mlp}")
    wait_status(page, "succeeded", timeout_s=120)
    history = api_a.get(f"/jobs/{mlp}").json()["result"]["history"]
    # Every recorded round is a visible mark, also when the network's fit is one round.
    points = page.locator("[data-chart='history'] svg circle.point[data-series='risk']")
    assert points.count() == len(history) >= 1
    if len(history) == 1:
        assert "network" in page.locator("[data-chart='history'] figcaption").inner_text()
    assert page.locator("#job-name").inner_text() == "mlp run"
    # Compare it with the SAL job of the submit test: pick both in the list.
    go(page, "#/jobs")
    page.locator("#jobs-table").wait_for()
    for job_id in (state["sal_job"], mlp):
        page.locator(f"#jobs-table tr:has(a[href='#/jobs/{job_id}']) input.pick").check()
    page.locator("#jobs-compare").click()
    page.locator("#compare-table").wait_for()
    table_text = page.locator("#compare-table").inner_text()
    assert state["sal_job"][:8] in table_text and mlp[:8] in table_text and "Mean_Error" in table_text
    compared = api_a.get("/jobs/compare", params={"ids": [state["sal_job"], mlp]}).json()
    assert [r[0] for r in figure_rows(page, "compare-environments")] == list(compared["environments"])
    screenshot(page, "compare")


def test_a_sweep_from_the_form(
    page: Any, api_a: httpx.Client, setting: synthetic.Setting, state: dict[str, Any]
) -> None:
    """The sweep form, no JSON: SAL ticked searches λ "auto" (as a job runs it), the rest their grids."""
    go(page, "#/sweeps")
    page.get_by_label("Dataset", exact=True).select_option(state["dataset_id"])
    for box in page.locator("input[name='sweep-algorithm']").all():
        box.set_checked(box.get_attribute("value") in ("sal", "erm"))
    page.get_by_label("Seeds (comma-separated)").fill("0")
    page.get_by_role("button", name="Start sweep").click()
    page.wait_for_url(re.compile(r"#/sweeps/[0-9a-f-]+$"))
    sweep = api_a.get(f"/sweeps/{page.evaluate('location.hash').split('/')[-1]}").json()
    assert sorted(sweep["algorithms"]) == ["erm", "sal"] and sweep["seeds"] == [0]
    assert sweep["train_environments"] == [e.name for e in setting.train]
    sal = sweep["algorithms"]["sal"]
    assert sal and all(p.get("lambda_") == "auto" for p in sal), sal
