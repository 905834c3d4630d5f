"""``sal datasets``: upload and inspect datasets."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Annotated, Any

import typer

from sal_cli import output
from sal_cli.common import call, show

app = typer.Typer(help="Upload and inspect datasets.", no_args_is_help=True)


def _dataset_table(d: dict[str, Any]) -> None:
    output.fields(d, ("id", "name", "sha256", "n_rows", "target", "feature_names"), title="dataset")
    output.table(None, ["environment", "rows"], [[e["name"], e["n_rows"]] for e in d["environments"]])
    if d.get("warnings"):  # what the upload decided: columns left out, gaps filled, rows left out
        output.table(None, ["warning"], [[w] for w in d["warnings"]])


@app.command("upload")
def datasets_upload(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, help="A CSV or Parquet file.")],
    target: Annotated[str, typer.Option(help="The label column.")],
    environment: Annotated[str, typer.Option(help="The column naming each row's environment.")],
    features: Annotated[
        str | None, typer.Option(help="Comma-separated feature columns (default: every other numeric).")
    ] = None,
    name: Annotated[str | None, typer.Option(help="Dataset name (default: the file name).")] = None,
    resume: Annotated[
        bool,
        typer.Option(
            "--resume",
            help="Send the file in parts through a resumable upload; a cut connection is resumed, and so "
            "is a run that was stopped (run the same command again).",
        ),
    ] = False,
    part_mb: Annotated[
        float, typer.Option(min=0.001, help="With --resume: the size of a part, in MiB.")
    ] = 64.0,
    state_dir: Annotated[
        Path | None, typer.Option(help="With --resume: where unfinished uploads are remembered.")
    ] = None,
) -> None:
    """Upload a dataset; the same content again returns the existing one."""
    if resume:
        from sal_cli import resume as resumable

        feature_list = [f.strip() for f in features.split(",") if f.strip()] if features else None
        doc = resumable.upload(
            file, target, environment, feature_list, name, int(part_mb * 1024 * 1024), state_dir
        )
        show(doc, _dataset_table)
        return
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


@app.command("get")
def datasets_get(dataset_id: str) -> None:
    """Show a dataset."""
    from sal_client.api.datasets import get_dataset

    show(call(get_dataset, dataset_id).to_dict(), _dataset_table)
