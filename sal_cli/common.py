"""What every ``sal`` command shares: the session's options, the client, calling an endpoint and
turning a problem response into a one-line error, printing tables or JSON, fetching a report."""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

import typer

from sal_cli import output

JOB_FIELDS = ("id", "name", "tags", "status", "algorithm", "task", "dataset_id", "seed", "params", "train_environments",
              "test_environments", "created_at", "finished_at", "error", "sweep_id")  # fmt: skip


class State:
    url: str = "http://127.0.0.1:8000"
    api_key: str | None = None
    as_json: bool = False
    interval: float = 0.5
    sleep: Callable[[float], None] = time.sleep


state = State()


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
        fail_problem(int(response.status_code), response.content)
    return response.parsed


def fail_problem(status: int, content: bytes) -> NoReturn:
    """An error answer as one line: the problem's title, detail and each bad field."""
    try:
        problem = json.loads(content)
        fields = "; ".join(f"{e['field']}: {e['message']}" for e in problem.get("errors", []))
        message = f"{problem.get('title', status)}: {problem.get('detail', '')}" + (
            f" [{fields}]" if fields else ""
        )
    except (ValueError, AttributeError, TypeError, KeyError):
        message = f"HTTP {status}: {content[:500]!r}"
    fail(message)


def raw(method: str, path: str, **kwargs: Any) -> Any:
    """A request to an endpoint the generated client does not have (the operator's tenant erase):
    its JSON, or the problem as one line and exit status 1."""
    import httpx

    with client() as c:
        try:
            response = c.get_httpx_client().request(method, path, **kwargs)
        except httpx.HTTPError as exc:
            fail(f"cannot reach {state.url}: {exc}")
    if response.status_code >= 400:
        fail_problem(response.status_code, response.content)
    return response.json()


def show(doc: dict[str, Any], render: Callable[[dict[str, Any]], None]) -> None:
    if state.as_json:
        output.print_json(doc)
    else:
        render(doc)


def fetch_report(path: str, format: str, out: Path | None) -> None:
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
        typer.echo(f"wrote {len(response.content)} bytes to {out}", err=True)


def finish(doc: dict[str, Any], render: Callable[[dict[str, Any]], None]) -> None:
    show(doc, render)
    if doc["status"] != "succeeded":
        raise typer.Exit(2)
