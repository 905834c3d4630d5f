from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.jobs_public import JobsPublic
from ...models.list_jobs_sort import ListJobsSort
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
    sweep_id: None | str | Unset = UNSET,
    q: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    param: list[str] | None | Unset = UNSET,
    max_mean_error: float | None | Unset = UNSET,
    sort: ListJobsSort | Unset = ListJobsSort.VALUE_0,
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

    json_sweep_id: None | str | Unset
    if isinstance(sweep_id, Unset):
        json_sweep_id = UNSET
    else:
        json_sweep_id = sweep_id
    params["sweep_id"] = json_sweep_id

    json_q: None | str | Unset
    if isinstance(q, Unset):
        json_q = UNSET
    else:
        json_q = q
    params["q"] = json_q

    json_tag: list[str] | None | Unset
    if isinstance(tag, Unset):
        json_tag = UNSET
    elif isinstance(tag, list):
        json_tag = tag

    else:
        json_tag = tag
    params["tag"] = json_tag

    json_param: list[str] | None | Unset
    if isinstance(param, Unset):
        json_param = UNSET
    elif isinstance(param, list):
        json_param = param

    else:
        json_param = param
    params["param"] = json_param

    json_max_mean_error: float | None | Unset
    if isinstance(max_mean_error, Unset):
        json_max_mean_error = UNSET
    else:
        json_max_mean_error = max_mean_error
    params["max_mean_error"] = json_max_mean_error

    json_sort: str | Unset = UNSET
    if not isinstance(sort, Unset):
        json_sort = sort.value

    params["sort"] = json_sort

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
    sweep_id: None | str | Unset = UNSET,
    q: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    param: list[str] | None | Unset = UNSET,
    max_mean_error: float | None | Unset = UNSET,
    sort: ListJobsSort | Unset = ListJobsSort.VALUE_0,
) -> Response[JobsPublic | Problem]:
    """List Jobs

     Newest first (or by ``sort``), each job as a summary (under 1 KB; the full result is on
    GET /jobs/{id}). A page holds fewer than ``limit`` jobs when they would pass
    ``max_response_bytes`` (follow next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):
        sweep_id (None | str | Unset):
        q (None | str | Unset): A substring of the name or description (any case).
        tag (list[str] | None | Unset): Jobs with every one of these tags.
        param (list[str] | None | Unset): name=value: jobs whose parameter equals it (repeat).
        max_mean_error (float | None | Unset): Jobs whose test Mean_Error is at most this.
        sort (ListJobsSort | Unset): Sort key, '-' for descending; jobs without that metric come
            last. Default: ListJobsSort.VALUE_0.

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
        sweep_id=sweep_id,
        q=q,
        tag=tag,
        param=param,
        max_mean_error=max_mean_error,
        sort=sort,
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
    sweep_id: None | str | Unset = UNSET,
    q: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    param: list[str] | None | Unset = UNSET,
    max_mean_error: float | None | Unset = UNSET,
    sort: ListJobsSort | Unset = ListJobsSort.VALUE_0,
) -> JobsPublic | Problem | None:
    """List Jobs

     Newest first (or by ``sort``), each job as a summary (under 1 KB; the full result is on
    GET /jobs/{id}). A page holds fewer than ``limit`` jobs when they would pass
    ``max_response_bytes`` (follow next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):
        sweep_id (None | str | Unset):
        q (None | str | Unset): A substring of the name or description (any case).
        tag (list[str] | None | Unset): Jobs with every one of these tags.
        param (list[str] | None | Unset): name=value: jobs whose parameter equals it (repeat).
        max_mean_error (float | None | Unset): Jobs whose test Mean_Error is at most this.
        sort (ListJobsSort | Unset): Sort key, '-' for descending; jobs without that metric come
            last. Default: ListJobsSort.VALUE_0.

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
        sweep_id=sweep_id,
        q=q,
        tag=tag,
        param=param,
        max_mean_error=max_mean_error,
        sort=sort,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    limit: int | Unset = 50,
    cursor: None | str | Unset = UNSET,
    status: ListJobsStatusType0 | None | Unset = UNSET,
    algorithm: None | str | Unset = UNSET,
    dataset_id: None | str | Unset = UNSET,
    sweep_id: None | str | Unset = UNSET,
    q: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    param: list[str] | None | Unset = UNSET,
    max_mean_error: float | None | Unset = UNSET,
    sort: ListJobsSort | Unset = ListJobsSort.VALUE_0,
) -> Response[JobsPublic | Problem]:
    """List Jobs

     Newest first (or by ``sort``), each job as a summary (under 1 KB; the full result is on
    GET /jobs/{id}). A page holds fewer than ``limit`` jobs when they would pass
    ``max_response_bytes`` (follow next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):
        sweep_id (None | str | Unset):
        q (None | str | Unset): A substring of the name or description (any case).
        tag (list[str] | None | Unset): Jobs with every one of these tags.
        param (list[str] | None | Unset): name=value: jobs whose parameter equals it (repeat).
        max_mean_error (float | None | Unset): Jobs whose test Mean_Error is at most this.
        sort (ListJobsSort | Unset): Sort key, '-' for descending; jobs without that metric come
            last. Default: ListJobsSort.VALUE_0.

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
        sweep_id=sweep_id,
        q=q,
        tag=tag,
        param=param,
        max_mean_error=max_mean_error,
        sort=sort,
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
    sweep_id: None | str | Unset = UNSET,
    q: None | str | Unset = UNSET,
    tag: list[str] | None | Unset = UNSET,
    param: list[str] | None | Unset = UNSET,
    max_mean_error: float | None | Unset = UNSET,
    sort: ListJobsSort | Unset = ListJobsSort.VALUE_0,
) -> JobsPublic | Problem | None:
    """List Jobs

     Newest first (or by ``sort``), each job as a summary (under 1 KB; the full result is on
    GET /jobs/{id}). A page holds fewer than ``limit`` jobs when they would pass
    ``max_response_bytes`` (follow next_cursor).

    Args:
        limit (int | Unset):  Default: 50.
        cursor (None | str | Unset): next_cursor of the previous page
        status (ListJobsStatusType0 | None | Unset):
        algorithm (None | str | Unset):
        dataset_id (None | str | Unset):
        sweep_id (None | str | Unset):
        q (None | str | Unset): A substring of the name or description (any case).
        tag (list[str] | None | Unset): Jobs with every one of these tags.
        param (list[str] | None | Unset): name=value: jobs whose parameter equals it (repeat).
        max_mean_error (float | None | Unset): Jobs whose test Mean_Error is at most this.
        sort (ListJobsSort | Unset): Sort key, '-' for descending; jobs without that metric come
            last. Default: ListJobsSort.VALUE_0.

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
            sweep_id=sweep_id,
            q=q,
            tag=tag,
            param=param,
            max_mean_error=max_mean_error,
            sort=sort,
        )
    ).parsed
