"""``sal``: datasets, jobs and sweeps from the shell, through the generated client.

    sal datasets upload data.csv --target y --environment site
    sal jobs submit --dataset ID --algorithm sal --train e1,e2 --watch
    sal jobs watch ID | get ID | cancel ID | download ID -o model.safetensors
    sal jobs list --tag paper --sort mean_error | show ID | tag ID --name N | compare A B | delete ID
    sal datasets list | delete ID [--cascade]      sal predict JOB rows.json
    sal sweeps submit sweep.json --watch | get ID | watch ID | report ID --format html -o report.html
    sal admin keys create --tenant T [--scope read] [--expires-in-days N] | list | revoke ID

``--url`` / ``SAL_URL`` (default http://127.0.0.1:8000) and ``--api-key`` / ``SAL_API_KEY`` pick
the service; ``--json`` prints the API's documents instead of tables.
"""

from __future__ import annotations

from typing import Annotated

import typer

from sal_cli import admin, datasets, find, jobs, sweeps
from sal_cli.common import state

app = typer.Typer(
    help="Train and compare distributionally robust models on sal-service.", no_args_is_help=True
)
app.add_typer(datasets.app, name="datasets")
app.add_typer(jobs.app, name="jobs")
app.add_typer(sweeps.app, name="sweeps")
app.add_typer(admin.app, name="admin")
app.command("predict")(find.predict)


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


if __name__ == "__main__":  # pragma: no cover
    app()
