from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.job_create import JobCreate
from ...models.job_public import JobPublic
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: JobCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/jobs",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobPublic | Problem | None:
    if response.status_code == 202:
        response_202 = JobPublic.from_dict(response.json())

        return response_202

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 429:
        response_429 = Problem.from_dict(response.json())

        return response_429

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[JobPublic | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: JobCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[JobPublic | Problem]:
    """Create Job

     Validate and queue a training job; poll GET /jobs/{id} (the Location header) for its result.

    With an ``Idempotency-Key`` a retry returns the first response instead of a second job. More
    than ``max_active_jobs_per_tenant`` queued plus running jobs is a 429 with Retry-After.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (JobCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobPublic | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: JobCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> JobPublic | Problem | None:
    """Create Job

     Validate and queue a training job; poll GET /jobs/{id} (the Location header) for its result.

    With an ``Idempotency-Key`` a retry returns the first response instead of a second job. More
    than ``max_active_jobs_per_tenant`` queued plus running jobs is a 429 with Retry-After.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (JobCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobPublic | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: JobCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[JobPublic | Problem]:
    """Create Job

     Validate and queue a training job; poll GET /jobs/{id} (the Location header) for its result.

    With an ``Idempotency-Key`` a retry returns the first response instead of a second job. More
    than ``max_active_jobs_per_tenant`` queued plus running jobs is a 429 with Retry-After.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (JobCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobPublic | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: JobCreate,
    idempotency_key: None | str | Unset = UNSET,
) -> JobPublic | Problem | None:
    """Create Job

     Validate and queue a training job; poll GET /jobs/{id} (the Location header) for its result.

    With an ``Idempotency-Key`` a retry returns the first response instead of a second job. More
    than ``max_active_jobs_per_tenant`` queued plus running jobs is a 429 with Retry-After.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (JobCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobPublic | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
