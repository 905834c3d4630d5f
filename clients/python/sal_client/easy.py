"""A small hand-written layer over the generated client: errors as exceptions, ``wait`` and
``iter_events``, reports in every format, and paging through lists.

    from sal_client.easy import Sal, NotFound

    with Sal("http://127.0.0.1:8000") as sal:
        dataset = sal.upload_dataset("selection_bias.csv", target="y", environment="env")
        job = sal.submit_job(dataset_id=dataset.id, algorithm="sal", train_environments=["r=1.7", "r=-1.1"])
        job = sal.wait(job.id)                    # follows GET /jobs/{id}/events; JobPublic
        print(job.result.summary.mean_error)     # type: ignore[union-attr] if you do not check

Every method returns the generated models (``JobPublic``, ``DatasetPublic``...) or plain JSON, and
raises an ``ApiError`` subclass carrying the problem body (RFC 9457) on a 4xx or 5xx answer.
Network failures are httpx's own exceptions (``httpx.TransportError``).

The exception tree::

    SalError
     ├── ApiError              any 4xx/5xx answer: .status, .problem (dict), .title, .detail, .errors
     │    ├── BadRequest       400
     │    ├── Unauthorized     401
     │    ├── Forbidden        403
     │    ├── NotFound         404
     │    ├── Conflict         409
     │    ├── PayloadTooLarge  413
     │    ├── InvalidInput     422 (each bad field in .errors)
     │    ├── RateLimited      429 (.retry_after seconds)
     │    └── Unavailable      503
     ├── JobFailed             wait(..., check=True) on a job that did not succeed: .job
     └── WaitTimeout           wait(..., timeout=s) ran out: .last (the last state seen)

``unwrap`` turns what a generated ``sync()`` returns into its value or one of these exceptions.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar, overload

import httpx

from .client import AuthenticatedClient, Client
from .models.dataset_public import DatasetPublic
from .models.dataset_summary import DatasetSummary
from .models.job_public import JobPublic
from .models.job_summary import JobSummary
from .models.key_created import KeyCreated
from .models.key_public import KeyPublic
from .models.problem import Problem
from .models.sweep_public import SweepPublic

__all__ = [
    "ApiError",
    "BadRequest",
    "Conflict",
    "Event",
    "Forbidden",
    "InvalidInput",
    "JobFailed",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "Sal",
    "SalError",
    "Unauthorized",
    "Unavailable",
    "WaitTimeout",
    "error_for",
    "read_events",
    "unwrap",
]

TERMINAL = ("succeeded", "failed", "cancelled")
T = TypeVar("T")


class SalError(Exception):
    """Every error this module raises."""


class ApiError(SalError):
    """The service answered with a problem (``application/problem+json``)."""

    def __init__(self, status: int, problem: Mapping[str, Any]) -> None:
        self.status = status
        self.problem: dict[str, Any] = dict(problem)
        self.title: str = str(problem.get("title", ""))
        self.detail: str = str(problem.get("detail", ""))
        self.errors: list[dict[str, Any]] = list(problem.get("errors") or [])
        fields = "; ".join(f"{e.get('field')}: {e.get('message')}" for e in self.errors)
        super().__init__(f"{status} {self.title}: {self.detail}" + (f" [{fields}]" if fields else ""))


class BadRequest(ApiError):
    pass


class Unauthorized(ApiError):
    pass


class Forbidden(ApiError):
    pass


class NotFound(ApiError):
    pass


class Conflict(ApiError):
    pass


class PayloadTooLarge(ApiError):
    pass


class InvalidInput(ApiError):
    pass


class RateLimited(ApiError):
    def __init__(self, status: int, problem: Mapping[str, Any], retry_after: float | None = None) -> None:
        super().__init__(status, problem)
        self.retry_after = retry_after


class Unavailable(ApiError):
    pass


class JobFailed(SalError):
    def __init__(self, job: JobPublic) -> None:
        self.job = job
        error = job.error.message if job.error else ""
        super().__init__(f"job {job.id} {job.status}: {error}".rstrip(": "))


class WaitTimeout(SalError):
    def __init__(self, what: str, timeout: float, last: Any) -> None:
        self.last = last
        super().__init__(f"{what} did not finish within {timeout} s")


_BY_STATUS: dict[int, type[ApiError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    422: InvalidInput,
    503: Unavailable,
}


def error_for(status: int, body: bytes, headers: Mapping[str, str] | None = None) -> ApiError:
    """The exception for an error answer: its problem body, or the raw text when it is not one."""
    try:
        problem = json.loads(body)
        if not isinstance(problem, dict):
            raise ValueError
    except ValueError:
        problem = {"title": f"HTTP {status}", "detail": body[:500].decode(errors="replace")}
    if status == 429:
        retry = (headers or {}).get("retry-after")
        return RateLimited(status, problem, float(retry) if retry and retry.isdigit() else None)
    cls = _BY_STATUS.get(status, ApiError)
    return cls(status, problem)


def unwrap(value: T | Problem | None) -> T:
    """What a generated ``sync()`` returned, or its problem raised as an ``ApiError``."""
    if isinstance(value, Problem):
        raise error_for(value.status, json.dumps(value.to_dict()).encode())
    if value is None:
        raise SalError("the service gave an answer this client does not know")
    return value


@dataclass(frozen=True)
class Event:
    """One Server-Sent Event of GET /jobs/{id}/events: ``status``, ``progress`` (``data`` is a
    JobEventData document) or ``final`` (``data`` is the JobSummary)."""

    event: str
    id: str
    data: dict[str, Any]


def read_events(lines: Iterator[str]) -> Iterator[Event]:
    """Events from the lines of a ``text/event-stream`` body; comments (keep-alives) are skipped."""
    fields: dict[str, str] = {}
    for line in lines:
        if not line:
            if "data" in fields:
                yield Event(fields.get("event", "message"), fields.get("id", ""), json.loads(fields["data"]))
            fields = {}
        elif not line.startswith(":"):
            name, _, value = line.partition(":")
            fields[name] = value.removeprefix(" ")
    if "data" in fields:
        yield Event(fields.get("event", "message"), fields.get("id", ""), json.loads(fields["data"]))


class Sal:
    """The service at ``base_url`` (with ``api_key`` where it requires keys)."""

    def __init__(
        self,
        base_url: str = "http://127.0.0.1:8000",
        api_key: str | None = None,
        *,
        timeout: float | None = 60.0,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.client: Client | AuthenticatedClient = (
            AuthenticatedClient(base_url=base_url, token=api_key, timeout=httpx.Timeout(timeout))
            if api_key
            else Client(base_url=base_url, timeout=httpx.Timeout(timeout))
        )
        self._sleep = sleep

    def __enter__(self) -> Sal:
        self.client.__enter__()
        return self

    def __exit__(self, *args: Any) -> None:
        self.client.__exit__(*args)

    @property
    def http(self) -> httpx.Client:
        return self.client.get_httpx_client()

    # --- plumbing -------------------------------------------------------------------------------

    def request(self, method: str, path: str, **kwargs: Any) -> httpx.Response:
        """Any request; an error answer raises its ``ApiError``."""
        response = self.http.request(method, path, **kwargs)
        if response.status_code >= 400:
            raise error_for(response.status_code, response.content, response.headers)
        return response

    def _json(self, method: str, path: str, **kwargs: Any) -> dict[str, Any]:
        doc = self.request(method, path, **kwargs).json()
        assert isinstance(doc, dict)
        return doc

    def _pages(self, path: str, params: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
        query = {k: v for k, v in params.items() if v is not None}
        while True:
            page = self._json("GET", path, params=query)
            yield from page["items"]
            if not page.get("next_cursor"):
                return
            query["cursor"] = page["next_cursor"]

    # --- datasets -------------------------------------------------------------------------------

    def upload_dataset(
        self,
        file: str | Path | bytes,
        *,
        target: str,
        environment: str,
        features: Sequence[str] | None = None,
        name: str | None = None,
    ) -> DatasetPublic:
        """Upload a CSV or Parquet file (a path or its bytes); the same content returns the stored one."""
        data = file if isinstance(file, bytes) else Path(file).read_bytes()
        filename = "upload.csv" if isinstance(file, bytes) else Path(file).name
        form = {"target": target, "environment": environment}
        if features is not None:
            form["features"] = ",".join(features)
        if name is not None:
            form["name"] = name
        files = {"file": (filename, io.BytesIO(data), "application/octet-stream")}
        return DatasetPublic.from_dict(self._json("POST", "/datasets", data=form, files=files))

    def get_dataset(self, dataset_id: str) -> DatasetPublic:
        return DatasetPublic.from_dict(self._json("GET", f"/datasets/{dataset_id}"))

    def list_datasets(self, *, page_size: int = 100) -> Iterator[DatasetSummary]:
        """Every dataset as a summary, newest first (pages are followed as you iterate); its
        feature names and environments are on ``get_dataset``."""
        for item in self._pages("/datasets", {"limit": page_size}):
            yield DatasetSummary.from_dict(item)

    def delete_dataset(self, dataset_id: str, *, cascade: bool = False) -> None:
        """Delete a dataset; one that jobs use is a ``Conflict`` naming them unless ``cascade``
        (which deletes those jobs too)."""
        self.request("DELETE", f"/datasets/{dataset_id}", params={"cascade": "true"} if cascade else None)

    # --- jobs -----------------------------------------------------------------------------------

    def submit_job(self, body: Mapping[str, Any] | None = None, **fields: Any) -> JobPublic:
        """POST /jobs with ``body`` and/or keyword fields (``dataset_id``, ``algorithm``,
        ``train_environments``, ``params``, ``name``, ``tags``...)."""
        return JobPublic.from_dict(self._json("POST", "/jobs", json={**(body or {}), **fields}))

    def get_job(self, job_id: str) -> JobPublic:
        return JobPublic.from_dict(self._json("GET", f"/jobs/{job_id}"))

    def list_jobs(self, *, page_size: int = 100, **filters: Any) -> Iterator[JobSummary]:
        """Every job matching ``filters`` (the query parameters of GET /jobs: ``status``,
        ``algorithm``, ``dataset_id``, ``q``, ``tag``, ``sort``...), following the pages."""
        for item in self._pages("/jobs", {"limit": page_size, **filters}):
            yield JobSummary.from_dict(item)

    def update_job(self, job_id: str, **fields: Any) -> JobPublic:
        """Change a job's ``name``, ``tags`` or ``description``."""
        return JobPublic.from_dict(self._json("PATCH", f"/jobs/{job_id}", json=fields))

    def delete_job(self, job_id: str) -> None:
        """Delete a finished job and its result (a queued or running one is a ``Conflict``)."""
        self.request("DELETE", f"/jobs/{job_id}")

    def compare_jobs(self, job_ids: Sequence[str]) -> dict[str, Any]:
        """Two or more jobs side by side (GET /jobs/compare)."""
        return self._json("GET", "/jobs/compare", params={"ids": list(job_ids)})

    def cancel_job(self, job_id: str) -> JobPublic:
        return JobPublic.from_dict(self._json("POST", f"/jobs/{job_id}/cancel"))

    def rerun_job(self, job_id: str) -> JobPublic:
        return JobPublic.from_dict(self._json("POST", f"/jobs/{job_id}/rerun"))

    def predict(
        self,
        job_id: str,
        *,
        rows: Sequence[Mapping[str, float]] | None = None,
        X: Sequence[Sequence[float]] | None = None,
    ) -> list[float]:
        """Predictions of a succeeded job's model for ``rows`` ({feature: value}) or ``X``."""
        body: dict[str, Any] = {"rows": list(rows)} if rows is not None else {"X": [list(r) for r in X or []]}
        return list(self._json("POST", f"/jobs/{job_id}/predict", json=body)["predictions"])

    def weights(self, job_id: str) -> bytes:
        """The model as safetensors bytes (``sal_core.FittedModel.from_tensors`` loads them)."""
        return self.request("GET", f"/jobs/{job_id}/weights", params={"format": "safetensors"}).content

    def iter_events(self, job_id: str, *, last_event_id: str | None = None) -> Iterator[Event]:
        """The job's events as they happen, ending with ``final`` (an ended job: only that one)."""
        headers = {"Accept": "text/event-stream"}
        if last_event_id:
            headers["Last-Event-ID"] = last_event_id
        with self.http.stream(
            "GET", f"/jobs/{job_id}/events", headers=headers, timeout=httpx.Timeout(None)
        ) as response:
            if response.status_code >= 400:
                response.read()
                raise error_for(response.status_code, response.content, response.headers)
            if response.status_code == 204:
                return
            yield from read_events(response.iter_lines())

    def wait(self, job_id: str, *, timeout: float | None = None, check: bool = False, poll_s: float = 0.5) -> JobPublic:
        """The job once it has ended (succeeded, failed or cancelled). Follows its event stream,
        polling only where the server has none; ``check`` raises ``JobFailed`` unless it
        succeeded; ``timeout`` raises ``WaitTimeout``. A wrong id raises ``NotFound`` at once."""
        deadline = None if timeout is None else time.monotonic() + timeout
        job = self.get_job(job_id)
        while job.status not in TERMINAL:
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeout(f"job {job_id}", float(timeout or 0), job)
            if deadline is None:
                try:
                    for event in self.iter_events(job_id):
                        if event.event == "final":
                            break
                except NotFound:
                    pass  # no stream on this server: poll
            else:
                self._sleep(poll_s)
            job = self.get_job(job_id)
            if deadline is None and job.status not in TERMINAL:
                self._sleep(poll_s)
        if check and job.status != "succeeded":
            raise JobFailed(job)
        return job

    # --- reports --------------------------------------------------------------------------------

    @overload
    def job_report(self, job_id: str, format: Literal["json"] = "json") -> dict[str, Any]: ...
    @overload
    def job_report(self, job_id: str, format: Literal["markdown", "html"]) -> str: ...
    def job_report(self, job_id: str, format: str = "json") -> dict[str, Any] | str:
        """A job's report: its data (json) or a document with figures (markdown, html)."""
        response = self.request("GET", f"/jobs/{job_id}/report", params={"format": format})
        return response.json() if format == "json" else response.text

    @overload
    def sweep_report(self, sweep_id: str, format: Literal["json"] = "json") -> dict[str, Any]: ...
    @overload
    def sweep_report(self, sweep_id: str, format: Literal["markdown", "html"]) -> str: ...
    def sweep_report(self, sweep_id: str, format: str = "json") -> dict[str, Any] | str:
        response = self.request("GET", f"/sweeps/{sweep_id}/report", params={"format": format})
        return response.json() if format == "json" else response.text

    # --- sweeps ---------------------------------------------------------------------------------

    def submit_sweep(self, body: Mapping[str, Any]) -> SweepPublic:
        return SweepPublic.from_dict(self._json("POST", "/sweeps", json=dict(body)))

    def get_sweep(self, sweep_id: str) -> SweepPublic:
        return SweepPublic.from_dict(self._json("GET", f"/sweeps/{sweep_id}"))

    def wait_sweep(self, sweep_id: str, *, timeout: float | None = None, poll_s: float = 1.0) -> SweepPublic:
        """The sweep once every trial has ended (its leaderboard is then ready)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while (sweep := self.get_sweep(sweep_id)).status == "running":
            if deadline is not None and time.monotonic() >= deadline:
                raise WaitTimeout(f"sweep {sweep_id}", float(timeout or 0), sweep)
            self._sleep(poll_s)
        return sweep

    # --- API keys (an operator's key: the admin scope of a tenant in SAL_OPERATOR_TENANTS) -----

    def create_key(
        self,
        tenant: str,
        *,
        scopes: Sequence[Literal["read", "write", "admin"]] = ("read", "write"),
        name: str | None = None,
        expires_in_days: float | None = None,
        expires_at: dt.datetime | None = None,
    ) -> KeyCreated:
        """A new key for ``tenant`` (created if new); ``.key`` is the secret, shown this once."""
        body: dict[str, Any] = {"tenant": tenant, "scopes": list(scopes)}
        if name is not None:
            body["name"] = name
        if expires_in_days is not None:
            body["expires_in_days"] = expires_in_days
        if expires_at is not None:
            body["expires_at"] = expires_at.isoformat()
        return KeyCreated.from_dict(self._json("POST", "/admin/keys", json=body))

    def list_keys(
        self, *, tenant: str | None = None, state: Literal["active", "revoked", "expired"] | None = None
    ) -> list[KeyPublic]:
        """Keys, oldest first, never their secrets."""
        params = {k: v for k, v in {"tenant": tenant, "state": state}.items() if v is not None}
        return [KeyPublic.from_dict(k) for k in self._json("GET", "/admin/keys", params=params)["items"]]

    def revoke_key(self, key_id: str) -> KeyPublic:
        """The key stops working at once (revoking a revoked key changes nothing)."""
        return KeyPublic.from_dict(self._json("DELETE", f"/admin/keys/{key_id}"))
