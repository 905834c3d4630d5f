from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.sweep_create import SweepCreate
from ...models.sweep_public import SweepPublic
from ...types import Response


def _get_kwargs(
    *,
    body: SweepCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/sweeps",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | SweepPublic | None:
    if response.status_code == 202:
        response_202 = SweepPublic.from_dict(response.json())

        return response_202

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

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


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | SweepPublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: SweepCreate,
) -> Response[Problem | SweepPublic]:
    """Create Sweep

     Expand the search into trials (ordinary jobs, queued for every worker) and return the sweep;
    poll GET /sweeps/{id} for progress and, once every trial is finished, the leaderboard.

    A sweep is bounded by ``max_sweep_jobs``, not by the per-tenant cap on active jobs (a grid
    over five seeds would rarely fit it); its queued trials do count toward that cap for POST /jobs.

    Args:
        body (SweepCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SweepPublic]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    body: SweepCreate,
) -> Problem | SweepPublic | None:
    """Create Sweep

     Expand the search into trials (ordinary jobs, queued for every worker) and return the sweep;
    poll GET /sweeps/{id} for progress and, once every trial is finished, the leaderboard.

    A sweep is bounded by ``max_sweep_jobs``, not by the per-tenant cap on active jobs (a grid
    over five seeds would rarely fit it); its queued trials do count toward that cap for POST /jobs.

    Args:
        body (SweepCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SweepPublic
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: SweepCreate,
) -> Response[Problem | SweepPublic]:
    """Create Sweep

     Expand the search into trials (ordinary jobs, queued for every worker) and return the sweep;
    poll GET /sweeps/{id} for progress and, once every trial is finished, the leaderboard.

    A sweep is bounded by ``max_sweep_jobs``, not by the per-tenant cap on active jobs (a grid
    over five seeds would rarely fit it); its queued trials do count toward that cap for POST /jobs.

    Args:
        body (SweepCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | SweepPublic]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: SweepCreate,
) -> Problem | SweepPublic | None:
    """Create Sweep

     Expand the search into trials (ordinary jobs, queued for every worker) and return the sweep;
    poll GET /sweeps/{id} for progress and, once every trial is finished, the leaderboard.

    A sweep is bounded by ``max_sweep_jobs``, not by the per-tenant cap on active jobs (a grid
    over five seeds would rarely fit it); its queued trials do count toward that cap for POST /jobs.

    Args:
        body (SweepCreate):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | SweepPublic
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
