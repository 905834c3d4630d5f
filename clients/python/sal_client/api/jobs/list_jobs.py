from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.jobs_public import JobsPublic
from ...models.list_jobs_status_type_0 import ListJobsStatusType0
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    status: ListJobsStatusType0 | None | Unset = UNSET,
    algorithm: None | str | Unset = UNSET,
    dataset_id: None | str | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["limit"] = limit

    json_cursor: None | str | Unset
    if isinstance(cursor, Unset):
        json_cursor = UNSET
    else:
        json_cursor = cursor
    params["cursor"] = json_cursor

    json_status: None | str | Unset
    if isinstance(status, Unset):
        json_status = UNSET
    elif isinstance(status, ListJobsStatusType0):
        json_status = status.value
    else:
        json_status = status
    params["status"] = json_status

    json_algorithm: None | str | Unset
    if isinstance(algorithm, Unset):
        json_algorithm = UNSET
    else:
        json_algorithm = algorithm
    params["algorithm"] = json_algorithm

    json_dataset_id: None | str | Unset
    if isinstance(dataset_id, Unset):
        json_dataset_id = UNSET
    else:
        json_dataset_id = dataset_id
    params["dataset_id"] = json_dataset_id

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/jobs",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> JobsPublic | Problem | None:
    if response.status_code == 200:
        response_200 = JobsPublic.from_dict(response.json())

        return response_200

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[JobsPublic | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    status: ListJobsStatusType0 | None | Unset = UNSET,
    algorithm: None | str | Unset = UNSET,
    dataset_id: None | str | Unset = UNSET,
) -> Response[JobsPublic | Problem]:
    """List Jobs

     Newest first, each job as a summary (under 1 KB; the full result is on GET /jobs/{id}). A
    page holds fewer than ``limit`` jobs when they would pass ``max_response_bytes`` (follow
    next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobsPublic | Problem]
    """

    kwargs = _get_kwargs(
        limit=limit,
        cursor=cursor,
        status=status,
        algorithm=algorithm,
        dataset_id=dataset_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    status: ListJobsStatusType0 | None | Unset = UNSET,
    algorithm: None | str | Unset = UNSET,
    dataset_id: None | str | Unset = UNSET,
) -> JobsPublic | Problem | None:
    """List Jobs

     Newest first, each job as a summary (under 1 KB; the full result is on GET /jobs/{id}). A
    page holds fewer than ``limit`` jobs when they would pass ``max_response_bytes`` (follow
    next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobsPublic | Problem
    """

    return sync_detailed(
        client=client,
        limit=limit,
        cursor=cursor,
        status=status,
        algorithm=algorithm,
        dataset_id=dataset_id,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    status: ListJobsStatusType0 | None | Unset = UNSET,
    algorithm: None | str | Unset = UNSET,
    dataset_id: None | str | Unset = UNSET,
) -> Response[JobsPublic | Problem]:
    """List Jobs

     Newest first, each job as a summary (under 1 KB; the full result is on GET /jobs/{id}). A
    page holds fewer than ``limit`` jobs when they would pass ``max_response_bytes`` (follow
    next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[JobsPublic | Problem]
    """

    kwargs = _get_kwargs(
        limit=limit,
        cursor=cursor,
        status=status,
        algorithm=algorithm,
        dataset_id=dataset_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    status: ListJobsStatusType0 | None | Unset = UNSET,
    algorithm: None | str | Unset = UNSET,
    dataset_id: None | str | Unset = UNSET,
) -> JobsPublic | Problem | None:
    """List Jobs

     Newest first, each job as a summary (under 1 KB; the full result is on GET /jobs/{id}). A
    page holds fewer than ``limit`` jobs when they would pass ``max_response_bytes`` (follow
    next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        JobsPublic | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            limit=limit,
            cursor=cursor,
            status=status,
            algorithm=algorithm,
            dataset_id=dataset_id,
        )
    ).parsed
