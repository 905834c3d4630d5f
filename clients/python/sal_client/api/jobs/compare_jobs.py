from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.jobs_comparison import JobsComparison
from ...models.problem import Problem
from ...types import UNSET, Response


def _get_kwargs(
    *,
    ids: list[str],
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_ids = ids

    params["ids"] = json_ids

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/jobs/compare",
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> JobsComparison | Problem | None:
    if response.status_code == 200:
        response_200 = JobsComparison.from_dict(response.json())

        return response_200

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[JobsComparison | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    ids: list[str],
) -> Response[JobsComparison | Problem]:
    """Compare Jobs

     Jobs side by side: parameters (and which differ), test summary, error per environment,
    w and θ per covariate, one column per job.

    Args:
        ids (list[str]): Two to twenty job ids.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobsComparison | Problem]
    """

    kwargs = _get_kwargs(
        ids=ids,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    ids: list[str],
) -> JobsComparison | Problem | None:
    """Compare Jobs

     Jobs side by side: parameters (and which differ), test summary, error per environment,
    w and θ per covariate, one column per job.

    Args:
        ids (list[str]): Two to twenty job ids.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobsComparison | Problem
    """

    return sync_detailed(
        client=client,
        ids=ids,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    ids: list[str],
) -> Response[JobsComparison | Problem]:
    """Compare Jobs

     Jobs side by side: parameters (and which differ), test summary, error per environment,
    w and θ per covariate, one column per job.

    Args:
        ids (list[str]): Two to twenty job ids.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobsComparison | Problem]
    """

    kwargs = _get_kwargs(
        ids=ids,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    ids: list[str],
) -> JobsComparison | Problem | None:
    """Compare Jobs

     Jobs side by side: parameters (and which differ), test summary, error per environment,
    w and θ per covariate, one column per job.

    Args:
        ids (list[str]): Two to twenty job ids.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobsComparison | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            ids=ids,
        )
    ).parsed
