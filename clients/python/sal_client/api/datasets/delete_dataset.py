from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    dataset_id: str,
    *,
    cascade: bool | Unset = False,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    params["cascade"] = cascade

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "delete",
        "url": "/datasets/{dataset_id}".format(
            dataset_id=quote(str(dataset_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Any | Problem | None:
    if response.status_code == 204:
        response_204 = cast(Any, None)
        return response_204

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 404:
        response_404 = Problem.from_dict(response.json())

        return response_404

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Response[Any | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    dataset_id: str,
    *,
    client: AuthenticatedClient,
    cascade: bool | Unset = False,
) -> Response[Any | Problem]:
    """Delete Dataset

     Delete a dataset nobody uses. Jobs on it make this a 409 naming them (their reruns would
    need it), unless ``cascade=true`` deletes them too; queued or running jobs always do.

    Args:
        dataset_id (str):
        cascade (bool | Unset): Also delete the finished jobs (and sweeps) on it, with their
            results. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        dataset_id=dataset_id,
        cascade=cascade,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    dataset_id: str,
    *,
    client: AuthenticatedClient,
    cascade: bool | Unset = False,
) -> Any | Problem | None:
    """Delete Dataset

     Delete a dataset nobody uses. Jobs on it make this a 409 naming them (their reruns would
    need it), unless ``cascade=true`` deletes them too; queued or running jobs always do.

    Args:
        dataset_id (str):
        cascade (bool | Unset): Also delete the finished jobs (and sweeps) on it, with their
            results. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return sync_detailed(
        dataset_id=dataset_id,
        client=client,
        cascade=cascade,
    ).parsed


async def asyncio_detailed(
    dataset_id: str,
    *,
    client: AuthenticatedClient,
    cascade: bool | Unset = False,
) -> Response[Any | Problem]:
    """Delete Dataset

     Delete a dataset nobody uses. Jobs on it make this a 409 naming them (their reruns would
    need it), unless ``cascade=true`` deletes them too; queued or running jobs always do.

    Args:
        dataset_id (str):
        cascade (bool | Unset): Also delete the finished jobs (and sweeps) on it, with their
            results. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | Problem]
    """

    kwargs = _get_kwargs(
        dataset_id=dataset_id,
        cascade=cascade,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    dataset_id: str,
    *,
    client: AuthenticatedClient,
    cascade: bool | Unset = False,
) -> Any | Problem | None:
    """Delete Dataset

     Delete a dataset nobody uses. Jobs on it make this a 409 naming them (their reruns would
    need it), unless ``cascade=true`` deletes them too; queued or running jobs always do.

    Args:
        dataset_id (str):
        cascade (bool | Unset): Also delete the finished jobs (and sweeps) on it, with their
            results. Default: False.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | Problem
    """

    return (
        await asyncio_detailed(
            dataset_id=dataset_id,
            client=client,
            cascade=cascade,
        )
    ).parsed
