"""The `sal` command-line tool against a live server (the embedded default: API + real worker)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from sal_cli.main import app
from tests.e2e import scenario

pytestmark = [pytest.mark.services, pytest.mark.slow]

SAL = Path(sys.executable).with_name("sal")  # the console script installed with the package


def sal(url: str, *args: str, ok: bool = True) -> Any:
    result = CliRunner().invoke(app, ["--url", url, "--interval", "0.05", *args], catch_exceptions=False)
    if ok:
        assert result.exit_code == 0, result.output
    return result


@pytest.fixture(scope="module")
def dataset(embedded: str, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    csv = tmp_path_factory.mktemp("cli") / "sb.csv"
    csv.write_bytes(scenario.to_csv(scenario.setting("regression")))
    out = sal(
        embedded, "--json", "datasets", "upload", str(csv), "--target", "outcome", "--environment", "site"
    )
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def test_upload_prints_a_table_by_default(embedded: str, dataset: dict[str, Any], tmp_path: Path) -> None:
    csv = tmp_path / "again.csv"
    csv.write_bytes(scenario.to_csv(scenario.setting("regression")))
    out = sal(embedded, "datasets", "upload", str(csv), "--target", "outcome", "--environment", "site").stdout
    assert (
        dataset["id"] in out and "environment" in out and "r=1.7" in out
    )  # the same content: the same dataset


def test_upload_prints_what_the_upload_decided(embedded: str, tmp_path: Path) -> None:
    csv = tmp_path / "gaps.csv"
    csv.write_text("env,g,y\na,1.0,1.0\na,,2.0\nb,3.0,1.5\nb,4.0,\n")
    out = sal(embedded, "datasets", "upload", str(csv), "--target", "y", "--environment", "env").stdout
    words = " ".join(out.replace("│", " ").split())  # the table may wrap a warning across lines
    assert "warning" in out and "they hold its mean (2)" in words, out  # over the rows kept: 1 and 3
    assert "left out" in words, out


def test_jobs_submit_watch_get_download(embedded: str, dataset: dict[str, Any], tmp_path: Path) -> None:
    train = ",".join(e.name for e in scenario.setting("regression").train)
    job = json.loads(sal(embedded, "--json", "jobs", "submit", "--dataset", dataset["id"], "--algorithm", "sal",
                         "--train", train, "-p", "lambda_=1.0", "--device", "cpu").stdout)  # fmt: skip
    assert job["status"] == "queued" and job["params"]["lambda_"] == 1.0
    watched = sal(embedded, "jobs", "watch", job["id"])
    assert f"job {job['id']} succeeded" in watched.stderr and "Mean_Error" in watched.stdout
    assert "against ERM on the same test rows" in watched.stdout  # result.reference, as a table
    got = json.loads(sal(embedded, "--json", "jobs", "get", job["id"]).stdout)
    assert got["status"] == "succeeded" and set(got["result"]["covariate_weights"]) == set(
        dataset["feature_names"]
    )
    target = tmp_path / "m.safetensors"
    assert "wrote" in sal(embedded, "jobs", "download", job["id"], "-o", str(target)).stdout
    assert target.read_bytes()[8:9] == b"{"  # safetensors: an 8-byte header length, then JSON
    report = sal(embedded, "jobs", "report", job["id"], "--format", "markdown").stdout
    assert report.startswith(f"# Job {job['id']}") and "data:image/png;base64," in report


def test_installed_sal_watch_prints_progress(embedded: str, dataset: dict[str, Any]) -> None:
    train = ",".join(e.name for e in scenario.setting("regression").train)
    env = {**os.environ, "SAL_URL": embedded}
    # A job that runs a few seconds (IRM now converges in milliseconds): SAL at a fixed λ, 20,000 rounds.
    submitted = subprocess.run([str(SAL), "--json", "jobs", "submit", "--dataset", dataset["id"], "--algorithm", "sal",
                                "--train", train, "--device", "cpu", "-p", "lambda_=0.01", "-p", "rounds=20000"],
                               env=env, capture_output=True, text=True, timeout=60, check=True)  # fmt: skip
    job_id = json.loads(submitted.stdout)["id"]
    # 400 s: 120 ran out at load average 7 on 2 CPUs
    watched = subprocess.run([str(SAL), "--interval", "0.02", "jobs", "watch", job_id], env=env, capture_output=True,
                             text=True, timeout=400, check=True)  # fmt: skip
    lines = [line for line in watched.stderr.splitlines() if line.startswith(f"job {job_id} ")]
    status, progress = lines[-1].split()[2:]
    step, total = progress.split("/")
    assert status == "succeeded" and step == total, watched.stdout
    assert len(lines) >= 2  # it printed progress on the way, not only the end


def test_sweeps_submit_watch_get(embedded: str, dataset: dict[str, Any], tmp_path: Path) -> None:
    body = tmp_path / "sweep.json"
    body.write_text(json.dumps({
        "dataset_id": dataset["id"], "train_environments": [e.name for e in scenario.setting("regression").train],
        "algorithms": {"erm": {}, "ridge": {"grid": {"lambda_": [0.1, 1.0]}}}, "seeds": [0, 1], "device": "cpu",
    }))  # fmt: skip
    watched = sal(embedded, "sweeps", "submit", str(body), "--watch")
    out = watched.stdout
    assert "succeeded 6/6" in watched.stderr and "leaderboard" in out and "Mean_Error" in out
    sweep_id = watched.stderr.split("sweep ", 1)[1].split()[0]
    got = json.loads(sal(embedded, "--json", "sweeps", "get", sweep_id).stdout)
    assert [r["algorithm"] for r in got["leaderboard"]["algorithms"]] != [] and got["status"] == "succeeded"


def test_errors_are_one_line_and_exit_1(embedded: str) -> None:
    missing = sal(embedded, "jobs", "get", "no-such-job", ok=False)
    assert missing.exit_code == 1 and "Not Found" in missing.stderr
    bad = sal(embedded, "jobs", "submit", "--dataset", "x", "--algorithm", "sal", "--train", "a", ok=False)
    assert bad.exit_code == 1 and "dataset_id" in bad.stderr
    keyed = sal(embedded, "--api-key", "sal_not-a-key", "jobs", "get", "x", ok=False)  # the key is sent
    assert keyed.exit_code == 1 and "Unauthorized" in keyed.stderr
    down = sal("http://127.0.0.1:9", "jobs", "get", "x", ok=False)
    assert down.exit_code == 1 and "cannot reach" in down.stderr


def test_json_watch_keeps_stdout_pure_json(embedded: str, dataset: dict[str, Any]) -> None:
    """`sal --json jobs submit --watch | jq` parses: progress goes to stderr."""
    train = ",".join(e.name for e in scenario.setting("regression").train)
    env = {**os.environ, "SAL_URL": embedded}
    done = subprocess.run([str(SAL), "--json", "--interval", "0.02", "jobs", "submit", "--dataset", dataset["id"],
                           "--algorithm", "ridge", "--train", train, "--device", "cpu", "--name", "piped",
                           "--tag", "cli-json", "--watch"],
                          env=env, capture_output=True, text=True, timeout=120, check=True)  # fmt: skip
    job = json.loads(done.stdout)  # the whole of stdout is one JSON document
    assert job["status"] == "succeeded" and job["name"] == "piped" and job["tags"] == ["cli-json"]
    assert f"job {job['id']} succeeded" in done.stderr


def test_find_compare_predict_and_delete_runs(embedded: str, dataset: dict[str, Any], tmp_path: Path) -> None:
    train = ",".join(e.name for e in scenario.setting("regression").train)
    ids = []
    for lam in ("0.1", "100"):
        job = json.loads(sal(embedded, "--json", "jobs", "submit", "--dataset", dataset["id"], "--algorithm",
                             "ridge", "--train", train, "-p", f"lambda_={lam}", "--tag", "cli-find",
                             "--name", f"ridge {lam}", "--watch").stdout)  # fmt: skip
        ids.append(job["id"])
    listed = json.loads(sal(embedded, "--json", "jobs", "list", "--tag", "cli-find", "--sort", "name").stdout)
    assert [j["id"] for j in listed["items"]] == ids
    table = sal(embedded, "jobs", "list", "--tag", "cli-find").stdout
    assert "ridge 0.1" in table and "ridge 100" in table
    shown = sal(embedded, "jobs", "show", ids[0]).stdout
    assert "ridge 0.1" in shown and "Mean_Error" in shown
    compared = json.loads(sal(embedded, "--json", "jobs", "compare", *ids).stdout)
    assert compared["differing_params"] == ["lambda_"]
    assert "lambda_" in sal(embedded, "jobs", "compare", *ids).stdout
    tagged = json.loads(
        sal(embedded, "--json", "jobs", "tag", ids[1], "--tag", "cli-find", "--tag", "best").stdout
    )
    assert tagged["tags"] == ["cli-find", "best"]
    row = {name: 0.5 for name in dataset["feature_names"]}
    rows = tmp_path / "rows.json"
    rows.write_text(json.dumps([row, row]))
    predicted = json.loads(sal(embedded, "--json", "predict", ids[0], str(rows)).stdout)
    assert len(predicted["predictions"]) == 2 and predicted["predictions"][0] == predicted["predictions"][1]
    listed_ds = json.loads(sal(embedded, "--json", "datasets", "list").stdout)
    assert dataset["id"] in [d["id"] for d in listed_ds["items"]]
    assert sal(embedded, "jobs", "delete", ids[1]).exit_code == 0
    gone = sal(embedded, "jobs", "get", ids[1], ok=False)
    assert gone.exit_code == 1 and "Not Found" in gone.stderr
    refused = sal(embedded, "datasets", "delete", dataset["id"], ok=False)
    assert refused.exit_code == 1 and "cascade" in refused.stderr and ids[0] in refused.stderr


def test_admin_keys_create_list_use_and_revoke(embedded: str, tmp_path: Path) -> None:
    """Single-user mode's one user is an operator: ``sal admin keys`` makes a read-only key that
    the service then holds to its scope, and revokes it."""
    import uuid

    tenant = f"cli-{uuid.uuid4().hex[:8]}"
    made = json.loads(sal(embedded, "--json", "admin", "keys", "create", "--tenant", tenant, "--scope", "read",
                          "--name", "cli reader", "--expires-in-days", "1").stdout)  # fmt: skip
    assert made["key"].startswith("sal_") and made["scopes"] == ["read"] and made["state"] == "active"
    table = sal(embedded, "admin", "keys", "list", "--tenant", tenant).stdout
    assert made["id"] in table and "cli reader" in table and made["key"] not in table
    assert (
        json.loads(sal(embedded, "--json", "--api-key", made["key"], "datasets", "list").stdout)["items"]
        == []
    )
    csv = tmp_path / "d.csv"
    csv.write_text("env,x,y\na,1,2\nb,2,3\n")
    refused = sal(embedded, "--api-key", made["key"], "datasets", "upload", str(csv), "--target", "y",
                  "--environment", "env", ok=False)  # fmt: skip
    assert refused.exit_code == 1 and "Forbidden" in refused.stderr and "'write' scope" in refused.stderr
    revoked = json.loads(sal(embedded, "--json", "admin", "keys", "revoke", made["id"]).stdout)
    assert revoked["state"] == "revoked"
    gone = sal(embedded, "--api-key", made["key"], "datasets", "list", ok=False)
    assert gone.exit_code == 1 and "Unauthorized" in gone.stderr
    bad = sal(embedded, "admin", "keys", "create", "--tenant", tenant, "--scope", "admin", ok=False)
    assert bad.exit_code == 1 and "[scopes: " in bad.stderr
    assert (
        sal(embedded, "admin", "keys", "create", "--tenant", tenant, "--scope", "all", ok=False).exit_code
        == 2
    )
    missing = sal(embedded, "admin", "keys", "revoke", "no-such-key", ok=False)
    assert missing.exit_code == 1 and "Not Found" in missing.stderr


def test_admin_tenants_erase(embedded: str, embedded_data_dir: Path, tmp_path: Path) -> None:
    """``sal admin tenants erase`` asks first, then leaves no row that mentions the tenant's marker."""
    import uuid

    from sqlalchemy import create_engine

    from tests.app.test_tenants_erase import marker_rows

    marker = f"zq{uuid.uuid4().hex[:10]}"
    tenant = f"erase-{marker}"
    key = json.loads(sal(embedded, "--json", "admin", "keys", "create", "--tenant", tenant).stdout)["key"]
    csv = tmp_path / f"{marker}.csv"
    csv.write_text(f"env,x_{marker},y\na{marker},1,2\na{marker},2,3\nb{marker},3,5\nb{marker},4,4\n")
    sal(embedded, "--api-key", key, "datasets", "upload", str(csv), "--target", "y", "--environment", "env",
        "--name", f"data-{marker}")  # fmt: skip
    engine = create_engine(f"sqlite:///{embedded_data_dir / 'sal.db'}")
    try:
        assert {"tenants", "datasets"} <= set(marker_rows(engine, marker))
        asked = CliRunner().invoke(app, ["--url", embedded, "admin", "tenants", "erase", tenant], input="n\n")
        assert asked.exit_code == 1 and "not erased" in asked.stderr
        assert "datasets" in marker_rows(engine, marker)
        erased = json.loads(sal(embedded, "--json", "admin", "tenants", "erase", tenant, "--yes").stdout)
        assert erased["datasets"] == 1 and erased["tenants"] == 1 and erased["api_keys"] == 1, erased
        assert marker_rows(engine, marker) == {}
    finally:
        engine.dispose()
    gone = sal(embedded, "--api-key", key, "datasets", "list", ok=False)
    assert gone.exit_code == 1 and "Unauthorized" in gone.stderr  # its keys went with it
    missing = sal(embedded, "admin", "tenants", "erase", tenant, "--yes", ok=False)
    assert missing.exit_code == 1 and "Not Found" in missing.stderr
