"""Finding runs from the shell: ``sal jobs list/show/tag/delete/compare``, ``sal predict`` and
``sal datasets list/delete``, through the hand-written client layer (``sal_client.easy``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer

from sal_cli import datasets, jobs, output
from sal_cli.common import JOB_FIELDS, fail, show, state


def _sal() -> Any:
    from sal_client.easy import Sal

    return Sal(state.url, state.api_key, timeout=None)


def _run(work: Any) -> Any:
    """Call ``work(sal)``; a problem answer becomes a one-line error and exit status 1."""
    import httpx
    from sal_client.easy import ApiError

    try:
        with _sal() as sal:
            return work(sal)
    except ApiError as exc:
        fail(str(exc))
    except httpx.HTTPError as exc:
        fail(f"cannot reach {state.url}: {exc}")


def _summary_row(j: dict[str, Any]) -> list[Any]:
    s = j.get("summary") or {}
    return [j["id"], j.get("name"), ",".join(j.get("tags") or []), j["status"], j["algorithm"],
            s.get("mean_error"), s.get("worst_error"), j["created_at"]]  # fmt: skip


SUMMARY_COLUMNS = ["id", "name", "tags", "status", "algorithm", "Mean_Error", "worst", "created"]


@jobs.app.command("list")
def jobs_list(
    q: Annotated[str | None, typer.Option(help="A substring of the name or description.")] = None,
    tag: Annotated[
        list[str] | None, typer.Option(help="Only jobs with this tag (repeat: all of them).")
    ] = None,
    param: Annotated[
        list[str] | None, typer.Option(help="name=value: jobs whose parameter equals it.")
    ] = None,
    status: Annotated[
        str | None, typer.Option(help="queued, running, succeeded, failed or cancelled.")
    ] = None,
    algorithm: str | None = None,
    dataset: Annotated[str | None, typer.Option(help="Dataset id.")] = None,
    sort: Annotated[
        str,
        typer.Option(help="created_at, name, mean_error, worst_error, std_error, duration_s; '-' descends."),
    ] = "-created_at",
    limit: Annotated[int | None, typer.Option(help="At most this many (default: every page).")] = None,
) -> None:
    """List jobs (every page), newest first or by --sort."""
    filters = {"q": q, "tag": tag, "param": param, "status": status, "algorithm": algorithm,
               "dataset_id": dataset, "sort": sort}  # fmt: skip

    def work(sal: Any) -> list[dict[str, Any]]:
        out = []
        for job in sal.list_jobs(**{k: v for k, v in filters.items() if v}):
            out.append(job.to_dict())
            if limit is not None and len(out) >= limit:
                break
        return out

    items = _run(work)
    show(
        {"items": items},
        lambda d: output.table(
            f"{len(items)} job(s)", SUMMARY_COLUMNS, [_summary_row(j) for j in d["items"]]
        ),
    )


@jobs.app.command("show")
def jobs_show(job_id: str) -> None:
    """Show a job, its name, tags and result (the same as ``jobs get``)."""
    doc = _run(lambda sal: sal.get_job(job_id).to_dict())

    def render(job: dict[str, Any]) -> None:
        output.fields(job, ("name", "tags", "description"), title="run")
        jobs._job_table(job)

    show(doc, render)


@jobs.app.command("tag")
def jobs_tag(
    job_id: str,
    name: Annotated[str | None, typer.Option(help="A new name.")] = None,
    tag: Annotated[list[str] | None, typer.Option(help="The job's tags (repeat); replaces them.")] = None,
    description: Annotated[str | None, typer.Option(help="A new description.")] = None,
) -> None:
    """Rename, retag or describe a job."""
    changes = {
        k: v for k, v in {"name": name, "tags": tag, "description": description}.items() if v is not None
    }
    if not changes:
        fail("give --name, --tag or --description")
    doc = _run(lambda sal: sal.update_job(job_id, **changes).to_dict())
    show(doc, lambda j: output.fields(j, ("id", "name", "tags", "description", "status"), title="job"))


@jobs.app.command("delete")
def jobs_delete(job_id: str) -> None:
    """Delete a finished job and its result."""
    _run(lambda sal: sal.delete_job(job_id))
    show({"deleted": job_id}, lambda d: typer.echo(f"deleted job {d['deleted']}", err=True))


@jobs.app.command("compare")
def jobs_compare(job_ids: Annotated[list[str], typer.Argument(help="Two or more job ids.")]) -> None:
    """Jobs side by side: parameters that differ, error per environment, w per covariate."""
    doc = _run(lambda sal: sal.compare_jobs(job_ids))

    def render(d: dict[str, Any]) -> None:
        heads = ["", *[(j.get("name") or j["id"][:8]) for j in d["jobs"]]]
        output.table("jobs", heads, [
            ["algorithm", *[j["algorithm"] for j in d["jobs"]]],
            ["Mean_Error", *[(j.get("summary") or {}).get("mean_error") for j in d["jobs"]]],
            ["worst", *[(j.get("summary") or {}).get("worst_error") for j in d["jobs"]]],
            *[[f"param {k}", *d["params"][k]] for k in d["differing_params"]],
        ])  # fmt: skip
        if d["environments"]:
            output.table(
                f"{d['metric']} per environment", heads, [[e, *v] for e, v in d["environments"].items()]
            )
        if d["covariate_weights"]:
            output.table("w per covariate", heads, [[c, *v] for c, v in d["covariate_weights"].items()])

    show(doc, render)


def predict(
    job_id: str,
    rows: Annotated[
        Path,
        typer.Argument(
            help="A JSON file of rows ([{feature: value}] or [[values]]); '-': stdin.", allow_dash=True
        ),
    ],
) -> None:
    """Predict with a succeeded job's model."""
    import sys

    data = json.loads(sys.stdin.read() if str(rows) == "-" else rows.read_text())
    if isinstance(data, dict):
        data = data.get("rows", data.get("X"))
    if not isinstance(data, list) or not data:
        fail("give a JSON list of rows: [{feature: value}, ...] or [[value, ...], ...]")
    kind = "rows" if isinstance(data[0], dict) else "X"
    predictions = _run(lambda sal: sal.predict(job_id, **{kind: data}))
    show(
        {"predictions": predictions},
        lambda d: output.table(None, ["row", "prediction"], list(enumerate(d["predictions"]))),
    )


@datasets.app.command("list")
def datasets_list() -> None:
    """List every dataset, newest first."""
    items = _run(lambda sal: [d.to_dict() for d in sal.list_datasets()])
    show({"items": items}, lambda d: output.table(f"{len(items)} dataset(s)", ["id", "name", "rows", "features", "environments", "created"],
         [[x["id"], x["name"], x["n_rows"], x["n_features"], x["n_environments"], x["created_at"]] for x in d["items"]]))  # fmt: skip


@datasets.app.command("delete")
def datasets_delete(
    dataset_id: str,
    cascade: Annotated[bool, typer.Option("--cascade", help="Also delete the jobs on it.")] = False,
) -> None:
    """Delete a dataset (one that jobs use only with --cascade, which deletes them too)."""
    _run(lambda sal: sal.delete_dataset(dataset_id, cascade=cascade))
    show({"deleted": dataset_id}, lambda d: typer.echo(f"deleted dataset {d['deleted']}", err=True))


__all__ = ["JOB_FIELDS", "predict"]
