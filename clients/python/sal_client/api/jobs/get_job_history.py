from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.history_page import HistoryPage
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    from_: int | Unset = 0,
    limit: int | Unset = 100,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["from"] = from_

    params["limit"] = limit

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/jobs/{job_id}/history".format(
            job_id=quote(str(job_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> HistoryPage | Problem | None:
    if response.status_code == 200:
        response_200 = HistoryPage.from_dict(response.json())

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
) -> Response[HistoryPage | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    from_: int | Unset = 0,
    limit: int | Unset = 100,
) -> Response[HistoryPage | Problem]:
    """Get Job History

     The rounds of the job's fit (risk, loss per environment, w), a page at a time: empty until
    the job has a result.

    Args:
        job_id (str):
        from_ (int | Unset): Position of the first round Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HistoryPage | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        from_=from_,
        limit=limit,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    from_: int | Unset = 0,
    limit: int | Unset = 100,
) -> HistoryPage | Problem | None:
    """Get Job History

     The rounds of the job's fit (risk, loss per environment, w), a page at a time: empty until
    the job has a result.

    Args:
        job_id (str):
        from_ (int | Unset): Position of the first round Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HistoryPage | Problem
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        from_=from_,
        limit=limit,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    from_: int | Unset = 0,
    limit: int | Unset = 100,
) -> Response[HistoryPage | Problem]:
    """Get Job History

     The rounds of the job's fit (risk, loss per environment, w), a page at a time: empty until
    the job has a result.

    Args:
        job_id (str):
        from_ (int | Unset): Position of the first round Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[HistoryPage | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        from_=from_,
        limit=limit,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    from_: int | Unset = 0,
    limit: int | Unset = 100,
) -> HistoryPage | Problem | None:
    """Get Job History

     The rounds of the job's fit (risk, loss per environment, w), a page at a time: empty until
    the job has a result.

    Args:
        job_id (str):
        from_ (int | Unset): Position of the first round Default: 0.
        limit (int | Unset):  Default: 100.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        HistoryPage | Problem
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            from_=from_,
            limit=limit,
        )
    ).parsed
