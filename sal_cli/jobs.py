"""``sal jobs``: submit, follow and fetch training jobs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from sal_cli import output
from sal_cli.common import JOB_FIELDS, call, client, fail, fetch_report, finish, show, state

app = typer.Typer(help="Submit, follow and fetch training jobs.", no_args_is_help=True)


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
    if result.get("reference"):
        r = result["reference"]
        noise = abs(r["difference"]) <= 2 * r["standard_error"]
        verdict = "within noise" if noise else "better" if r["difference"] < 0 else "worse"
        output.table(f"against {r['algorithm'].upper()} on the same test rows",
                     ["metric", "reference Mean_Error", "difference", "standard error", "verdict"],
                     [[r["metric"], r["mean_error"], r["difference"], r["standard_error"], verdict]])  # fmt: skip
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
    """Follow the job's event stream (GET /jobs/{id}/events): the server says when it changed, so
    nothing is polled; a server without the stream is polled every ``--interval`` seconds."""
    from sal_cli.events import StreamUnavailable, job_states

    def progress(doc: dict[str, Any]) -> tuple[int, int | None, str]:
        return doc["progress"]["step"], doc["progress"].get("total"), doc["status"]

    label = f"job {job_id}"
    with client() as c:
        states = job_states(c.get_httpx_client(), job_id, lambda: _get_job(job_id))
        try:
            return output.watch(lambda: next(states), progress, label, 0.0, lambda _: None)
        except StreamUnavailable:
            pass
    return output.watch(lambda: _get_job(job_id), progress, label, state.interval, state.sleep)


@app.command("submit")
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
    task: Annotated[
        str | None,
        typer.Option(
            help="regression or classification (default: classification where every label is 0 or 1)."
        ),
    ] = None,
    seed: int = 0,
    device: Annotated[str, typer.Option(help="auto, cpu or cuda.")] = "auto",
    validation_fraction: Annotated[
        float | None, typer.Option(help="Hold out this share of each training environment.")
    ] = None,
    watch: Annotated[bool, typer.Option("--watch", help="Follow the job until it finishes.")] = False,
    name: Annotated[str | None, typer.Option(help="What you call this run.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="A tag to find it by (repeat).")] = None,
    description: Annotated[str | None, typer.Option(help="Free text about the run.")] = None,
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
    body: dict[str, Any] = {"dataset_id": dataset, "algorithm": algorithm, "train_environments": _names(train),
                            "params": params, "seed": seed, "device": device}  # fmt: skip
    body.update(
        {k: v for k, v in {"task": task, "name": name, "tags": tag, "description": description}.items() if v}
    )
    if test is not None:
        body["test_environments"] = _names(test)
    if validation_fraction is not None:
        body["validation"] = {"fraction": validation_fraction}
    job = call(create_job, body=JobCreate.from_dict(body)).to_dict()
    if watch:
        finish(_watch_job(job["id"]), _job_table)
    else:
        show(job, _job_table)


@app.command("get")
def jobs_get(job_id: str) -> None:
    """Show a job and, once it has succeeded, its result."""
    show(_get_job(job_id), _job_table)


@app.command("watch")
def jobs_watch(job_id: str) -> None:
    """Follow a job's progress until it finishes (exit status 2 unless it succeeded)."""
    finish(_watch_job(job_id), _job_table)


@app.command("cancel")
def jobs_cancel(job_id: str) -> None:
    """Cancel a job: a queued one at once, a running one at its next checkpoint."""
    from sal_client.api.jobs import cancel_job

    show(call(cancel_job, job_id).to_dict(), lambda j: output.fields(j, JOB_FIELDS, title="job"))


@app.command("rerun")
def jobs_rerun(job_id: str, watch: Annotated[bool, typer.Option("--watch")] = False) -> None:
    """Run the same job again from its reproducibility record."""
    from sal_client.api.jobs import rerun_job

    job = call(rerun_job, job_id).to_dict()
    if watch:
        finish(_watch_job(job["id"]), _job_table)
    else:
        show(job, _job_table)


@app.command("download")
def jobs_download(
    job_id: str,
    out: Annotated[
        Path | None,
        typer.Option("--output", "-o", help="File to write (default: job-ID.safetensors or .json)."),
    ] = None,
    format: Annotated[str, typer.Option(help="safetensors, json or onnx.")] = "safetensors",
) -> None:
    """Download the learned model (θ, w, standardisation) as safetensors or JSON, or as an ONNX
    graph that onnxruntime runs on raw covariates (docs/interop.md)."""
    from sal_client.api.jobs import get_job_onnx, get_job_weights
    from sal_client.models import GetJobWeightsFormat

    if format == "onnx":
        data = call(get_job_onnx, job_id).payload.read()
    else:
        data = call(get_job_weights, job_id, format_=GetJobWeightsFormat(format)).payload.read()
    path = out or Path(f"job-{job_id}.{format if format in ('safetensors', 'onnx') else 'json'}")
    path.write_bytes(data)
    show(
        {"path": str(path), "bytes": len(data)},
        lambda d: typer.echo(f"wrote {d['bytes']} bytes to {d['path']}"),
    )


@app.command("export")
def jobs_export(
    job_id: str,
    experiment: Annotated[str, typer.Option(help="MLflow experiment (created if new).")] = "sal-service",
    run_name: Annotated[str | None, typer.Option(help="The run's name (default sal-job-ID).")] = None,
) -> None:
    """Log a succeeded job as a new run on the server's MLflow tracking server
    (SAL_MLFLOW_TRACKING_URI): parameters, metrics, θ and w, and a pyfunc-loadable model."""
    from sal_client.api.jobs import export_job_mlflow
    from sal_client.models import MlflowExportRequest

    body = MlflowExportRequest(experiment=experiment, run_name=run_name)
    doc = call(export_job_mlflow, job_id, body=body).to_dict()
    show(
        doc,
        lambda d: typer.echo(
            f"logged run {d['run_id']} to {d['tracking_uri']}; "
            f"load it with mlflow.pyfunc.load_model({d['model_uri']!r})"
        ),
    )


@app.command("report")
def jobsfetch_report(
    job_id: str,
    format: Annotated[str, typer.Option(help="json, markdown or html.")] = "markdown",
    out: Annotated[Path | None, typer.Option("--output", "-o")] = None,
) -> None:
    """A job's report with figures (HTML or Markdown) or its data (JSON)."""
    fetch_report(f"/jobs/{job_id}/report", format, out)
