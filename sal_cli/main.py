"""``sal``: datasets, jobs and sweeps from the shell, through the generated client.

    sal datasets upload data.csv --target y --environment site
    sal jobs submit --dataset ID --algorithm sal --train e1,e2 --watch
    sal jobs watch ID | get ID | cancel ID | download ID -o model.safetensors
    sal sweeps submit sweep.json --watch | get ID | watch ID | report ID --format html -o report.html

``--url`` / ``SAL_URL`` (default http://127.0.0.1:8000) and ``--api-key`` / ``SAL_API_KEY`` pick
the service; ``--json`` prints the API's documents instead of tables.
"""

from __future__ import annotations

import io
import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, NoReturn

import typer

from sal_cli import output

app = typer.Typer(
    help="Train and compare distributionally robust models on sal-service.", no_args_is_help=True
)
datasets_app = typer.Typer(help="Upload and inspect datasets.", no_args_is_help=True)
jobs_app = typer.Typer(help="Submit, follow and fetch training jobs.", no_args_is_help=True)
sweeps_app = typer.Typer(help="Hyper-parameter sweeps with model selection.", no_args_is_help=True)
app.add_typer(datasets_app, name="datasets")
app.add_typer(jobs_app, name="jobs")
app.add_typer(sweeps_app, name="sweeps")

JOB_FIELDS = ("id", "status", "algorithm", "task", "dataset_id", "seed", "params", "train_environments",
              "test_environments", "created_at", "finished_at", "error", "sweep_id")  # fmt: skip


class State:
    url: str = "http://127.0.0.1:8000"
    api_key: str | None = None
    as_json: bool = False
    interval: float = 0.5
    sleep: Callable[[float], None] = time.sleep


state = State()


@app.callback()
def main(
    url: Annotated[
        str, typer.Option(envvar="SAL_URL", help="Base URL of the service.")
    ] = "http://127.0.0.1:8000",
    api_key: Annotated[
        str | None, typer.Option(envvar="SAL_API_KEY", help="API key (Authorization: Bearer).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON documents instead of tables.")] = False,
    interval: Annotated[float, typer.Option(help="Seconds between polls while watching.", min=0.01)] = 0.5,
) -> None:
    state.url, state.api_key, state.as_json, state.interval = url.rstrip("/"), api_key, as_json, interval


def client() -> Any:
    from sal_client import AuthenticatedClient, Client

    if state.api_key:
        return AuthenticatedClient(base_url=state.url, token=state.api_key, timeout=None)  # type: ignore[arg-type]
    return Client(base_url=state.url, timeout=None)  # type: ignore[arg-type]


def fail(message: str, code: int = 1) -> NoReturn:
    typer.echo(f"error: {message}", err=True)
    raise typer.Exit(code)


def call(endpoint: Any, *args: Any, **kwargs: Any) -> Any:
    """Call a generated endpoint; a problem response becomes a one-line error and exit status 1."""
    import httpx

    with client() as c:
        try:
            response = endpoint.sync_detailed(*args, client=c, **kwargs)
        except httpx.HTTPError as exc:
            fail(f"cannot reach {state.url}: {exc}")
    if response.status_code >= 400:
        try:
            problem = json.loads(response.content)
            fields = "; ".join(f"{e['field']}: {e['message']}" for e in problem.get("errors", []))
            fail(
                f"{problem.get('title', response.status_code)}: {problem.get('detail', '')}"
                + (f" [{fields}]" if fields else "")
            )
        except (ValueError, AttributeError):
            fail(f"HTTP {int(response.status_code)}: {response.content[:500]!r}")
    return response.parsed


def show(doc: dict[str, Any], render: Callable[[dict[str, Any]], None]) -> None:
    if state.as_json:
        output.print_json(doc)
    else:
        render(doc)


# --- datasets ---------------------------------------------------------------------------------


def _dataset_table(d: dict[str, Any]) -> None:
    output.fields(d, ("id", "name", "sha256", "n_rows", "target", "feature_names"), title="dataset")
    output.table(None, ["environment", "rows"], [[e["name"], e["n_rows"]] for e in d["environments"]])


@datasets_app.command("upload")
def datasets_upload(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A CSV or Parquet file.")],
    target: Annotated[str, typer.Option(help="The label column.")],
    environment: Annotated[str, typer.Option(help="The column naming each row's environment.")],
    features: Annotated[
        str | None, typer.Option(help="Comma-separated feature columns (default: every other numeric).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Dataset name (default: the file name).")] = None,
) -> None:
    """Upload a dataset; the same content again returns the existing one."""
    from sal_client.api.datasets import create_dataset
    from sal_client.models import DatasetUpload
    from sal_client.types import UNSET, File

    body = DatasetUpload(
        file=File(
            payload=io.BytesIO(file.read_bytes()), file_name=file.name, mime_type="application/octet-stream"
        ),
        target=target,
        environment=environment,
        features=features if features is not None else UNSET,
        name=name if name is not None else UNSET,
    )
    show(call(create_dataset, body=body).to_dict(), _dataset_table)


@datasets_app.command("get")
def datasets_get(dataset_id: str) -> None:
    """Show a dataset."""
    from sal_client.api.datasets import get_dataset

    show(call(get_dataset, dataset_id).to_dict(), _dataset_table)


# --- jobs -------------------------------------------------------------------------------------


def _parse_value(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return text


def _names(text: str | None) -> list[str] | None:
    return None if text is None else [n.strip() for n in text.split(",") if n.strip()]


def _job_table(job: dict[str, Any]) -> None:
    output.fields(job, JOB_FIELDS, title="job")
    result = job.get("result") or {}
    if result.get("summary"):
        s = result["summary"]
        output.table("test summary", ["metric", "Mean_Error", "Std_Error", "worst", "worst environment"],
                     [[s["metric"], s["mean_error"], s["std_error"], s["worst_error"], s.get("worst_environment")]])  # fmt: skip
    if result.get("environments"):
        envs = result["environments"]
        metrics = [k for k in envs[0] if k not in ("name", "split", "n_rows")]
        output.table("environments", ["environment", "split", "rows", *metrics],
                     [[e["name"], e["split"], e["n_rows"], *(e.get(m) for m in metrics)] for e in envs])  # fmt: skip
    if result.get("coefficients"):
        w = result.get("covariate_weights") or {}
        output.table(
            "per covariate",
            ["covariate", "θ", "w"],
            [[f, t, w.get(f)] for f, t in result["coefficients"].items()],
        )


def _get_job(job_id: str) -> dict[str, Any]:
    from sal_client.api.jobs import get_job

    return call(get_job, job_id).to_dict()  # type: ignore[no-any-return]


def _watch_job(job_id: str) -> dict[str, Any]:
    def progress(doc: dict[str, Any]) -> tuple[int, int | None, str]:
        return doc["progress"]["step"], doc["progress"].get("total"), doc["status"]

    return output.watch(lambda: _get_job(job_id), progress, f"job {job_id}", state.interval, state.sleep)


def _finish(doc: dict[str, Any], render: Callable[[dict[str, Any]], None]) -> None:
    show(doc, render)
    if doc["status"] != "succeeded":
        raise typer.Exit(2)


@jobs_app.command("submit")
def jobs_submit(
    dataset: Annotated[str, typer.Option(help="Dataset id.")],
    algorithm: Annotated[str, typer.Option(help="sal, erm, ridge, lasso, wdrl or irm.")],
    train: Annotated[str, typer.Option(help="Comma-separated training environments.")],
    test: Annotated[
        str | None, typer.Option(help="Comma-separated test environments (default: all others).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="A parameter as name=value (repeat).")
    ] = None,
    task: Annotated[str, typer.Option(help="regression or classification.")] = "regression",
    seed: int = 0,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    validation_fraction: Annotated[
        float | None, typer.Option(help="Hold out this share of each training environment.")
    ] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Follow the job until it finishes.")] = False,
) -> None:
    """Submit a training job."""
    from sal_client.api.jobs import create_job
    from sal_client.models import JobCreate

    params = {}
    for item in param or []:
        key, sep, value = item.partition("=")
        if not sep:
            fail(f"--param takes name=value, got {item!r}")
        params[key] = _parse_value(value)
    body: dict[str, Any] = {"dataset_id": dataset, "algorithm": algorithm, "task": task, "train_environments": _names(train),
                            "params": params, "seed": seed, "device": device}  # fmt: skip
    if test is not None:
        body["test_environments"] = _names(test)
    if validation_fraction is not None:
        body["validation"] = {"fraction": validation_fraction}
    job = call(create_job, body=JobCreate.from_dict(body)).to_dict()
    if watch:
        _finish(_watch_job(job["id"]), _job_table)
    else:
        show(job, _job_table)


@jobs_app.command("get")
def jobs_get(job_id: str) -> None:
    """Show a job and, once it has succeeded, its result."""
    show(_get_job(job_id), _job_table)


@jobs_app.command("watch")
def jobs_watch(job_id: str) -> None:
    """Follow a job's progress until it finishes (exit status 2 unless it succeeded)."""
    _finish(_watch_job(job_id), _job_table)


@jobs_app.command("cancel")
def jobs_cancel(job_id: str) -> None:
    """Cancel a job: a queued one at once, a running one at its next checkpoint."""
    from sal_client.api.jobs import cancel_job

    show(call(cancel_job, job_id).to_dict(), lambda j: output.fields(j, JOB_FIELDS, title="job"))


@jobs_app.command("rerun")
def jobs_rerun(job_id: str, watch: Annotated[bool, typer.Option("--watch")] = False) -> None:
    """Run the same job again from its reproducibility record."""
    from sal_client.api.jobs import rerun_job

    job = call(rerun_job, job_id).to_dict()
    if watch:
        _finish(_watch_job(job["id"]), _job_table)
    else:
        show(job, _job_table)


@jobs_app.command("download")
def jobs_download(
    job_id: str,
    out: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File to write (default: job-ID.safetensors or .json)."),
    ] = None,
    format: Annotated[str, typer.Option(help="safetensors or json.")] = "safetensors",
) -> None:
    """Download the learned model (θ, w, standardisation) as safetensors or JSON."""
    from sal_client.api.jobs import get_job_weights
    from sal_client.models import GetJobWeightsFormat

    data = call(get_job_weights, job_id, format_=GetJobWeightsFormat(format)).payload.read()
    path = out or Path(f"job-{job_id}.{'safetensors' if format == 'safetensors' else 'json'}")
    path.write_bytes(data)
    show(
        {"path": str(path), "bytes": len(data)},
        lambda d: typer.echo(f"wrote {d['bytes']} bytes to {d['path']}"),
    )


@jobs_app.command("report")
def jobs_report(
    job_id: str,
    format: Annotated[str, typer.Option(help="json, markdown or html.")] = "markdown",
    out: Annotated[Path | None, typer.Option("--output", "-o")] = None,
) -> None:
    """A job's report with figures (HTML or Markdown) or its data (JSON)."""
    _report(f"/jobs/{job_id}/report", format, out)


# --- sweeps -----------------------------------------------------------------------------------


def _sweep_table(sweep: dict[str, Any]) -> None:
    p = sweep["progress"]
    output.fields({**sweep, "progress": f"{p['done']}/{p['total']} done ({p['succeeded']} succeeded, {p['failed']} failed)"},
                  ("id", "status", "selection", "dataset_id", "seeds", "progress"), title="sweep")  # fmt: skip
    board = sweep.get("leaderboard")
    if not board:
        return
    label = " (ORACLE: selected on test error)" if board["oracle"] else ""
    pm = lambda ms: f"{ms['mean']:.4f} ± {ms['std']:.4f}"  # noqa: E731
    output.table(
        f"leaderboard{label}",
        ["rank", "algorithm", "selected", "Mean_Error", "Std_Error", "worst", "worst env"],
        [[r["rank"], r["algorithm"], _searched(r), pm(r["mean_error"]), pm(r["std_error"]), pm(r["worst_error"]),
          r["worst_environment"]] for r in board["algorithms"]],
    )  # fmt: skip
    for name, reason in board.get("unselected", {}).items():
        typer.echo(f"{name}: {reason}")


def _searched(row: dict[str, Any]) -> str:
    searched = row.get("searched_params") or {}
    return ", ".join(f"{k}={output.fmt(v)}" for k, v in searched.items()) or "defaults"


def _get_sweep(sweep_id: str) -> dict[str, Any]:
    from sal_client.api.sweeps import get_sweep

    return call(get_sweep, sweep_id).to_dict()  # type: ignore[no-any-return]


def _watch_sweep(sweep_id: str) -> dict[str, Any]:
    def progress(doc: dict[str, Any]) -> tuple[int, int | None, str]:
        return doc["progress"]["done"], doc["progress"]["total"], doc["status"]

    return output.watch(
        lambda: _get_sweep(sweep_id), progress, f"sweep {sweep_id}", state.interval, state.sleep
    )


@sweeps_app.command("submit")
def sweeps_submit(
    body: Annotated[
        Path, typer.Argument(help="The POST /sweeps body as a JSON file ('-': stdin).", allow_dash=True)
    ],
    watch: Annotated[
        bool, typer.Option("--watch", help="Follow the sweep until its leaderboard is ready.")
    ] = False,
) -> None:
    """Submit a sweep (see POST /sweeps for the body)."""
    from sal_client.api.sweeps import create_sweep
    from sal_client.models import SweepCreate

    text = sys.stdin.read() if str(body) == "-" else body.read_text()
    sweep = call(create_sweep, body=SweepCreate.from_dict(json.loads(text))).to_dict()
    if watch:
        _finish(_watch_sweep(sweep["id"]), _sweep_table)
    else:
        show(sweep, _sweep_table)


@sweeps_app.command("get")
def sweeps_get(sweep_id: str) -> None:
    """Show a sweep's progress and, when done, its leaderboard."""
    show(_get_sweep(sweep_id), _sweep_table)


@sweeps_app.command("watch")
def sweeps_watch(sweep_id: str) -> None:
    """Follow a sweep until every trial has finished, then show the leaderboard."""
    _finish(_watch_sweep(sweep_id), _sweep_table)


@sweeps_app.command("cancel")
def sweeps_cancel(sweep_id: str) -> None:
    """Cancel a sweep and its unfinished trials."""
    from sal_client.api.sweeps import cancel_sweep

    show(call(cancel_sweep, sweep_id).to_dict(), _sweep_table)


@sweeps_app.command("report")
def sweeps_report(
    sweep_id: str,
    format: Annotated[str, typer.Option(help="json, markdown or html.")] = "markdown",
    out: Annotated[Path | None, typer.Option("--output", "-o")] = None,
) -> None:
    """A sweep's report: leaderboard, per-environment errors and figures."""
    _report(f"/sweeps/{sweep_id}/report", format, out)


def _report(path: str, format: str, out: Path | None) -> None:
    # Reports have several content types; the raw httpx client of the generated one serves them all.
    import httpx

    with client() as c:
        try:
            response = c.get_httpx_client().get(path, params={"format": format})
        except httpx.HTTPError as exc:
            fail(f"cannot reach {state.url}: {exc}")
    if response.status_code >= 400:
        problem = response.json()
        fail(f"{problem.get('title')}: {problem.get('detail')}")
    if out is None:
        sys.stdout.write(response.text)
    else:
        out.write_bytes(response.content)
        typer.echo(f"wrote {len(response.content)} bytes to {out}")


if __name__ == "__main__":  # pragma: no cover
    app()
