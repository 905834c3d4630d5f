from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.upload_create import UploadCreate
from ...models.upload_public import UploadPublic
from ...types import Response


def _get_kwargs(
    *,
    body: UploadCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/datasets/uploads",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | UploadPublic | None:
    if response.status_code == 201:
        response_201 = UploadPublic.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 409:
        response_409 = Problem.from_dict(response.json())

        return response_409

    if response.status_code == 413:
        response_413 = Problem.from_dict(response.json())

        return response_413

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[Problem | UploadPublic]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: UploadCreate,
) -> Response[Problem | UploadPublic]:
    """Create Upload

     Open a resumable upload of ``size`` bytes; send it with ``PATCH`` in parts, then ``commit``.
    The tenant's dataset quota is checked now, before any byte is sent.

    Args:
        body (UploadCreate): Open a resumable upload (``POST /datasets/uploads``): the file's
            size, and optionally its
            digest, checked before it is parsed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UploadPublic]
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
    body: UploadCreate,
) -> Problem | UploadPublic | None:
    """Create Upload

     Open a resumable upload of ``size`` bytes; send it with ``PATCH`` in parts, then ``commit``.
    The tenant's dataset quota is checked now, before any byte is sent.

    Args:
        body (UploadCreate): Open a resumable upload (``POST /datasets/uploads``): the file's
            size, and optionally its
            digest, checked before it is parsed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UploadPublic
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: UploadCreate,
) -> Response[Problem | UploadPublic]:
    """Create Upload

     Open a resumable upload of ``size`` bytes; send it with ``PATCH`` in parts, then ``commit``.
    The tenant's dataset quota is checked now, before any byte is sent.

    Args:
        body (UploadCreate): Open a resumable upload (``POST /datasets/uploads``): the file's
            size, and optionally its
            digest, checked before it is parsed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UploadPublic]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: UploadCreate,
) -> Problem | UploadPublic | None:
    """Create Upload

     Open a resumable upload of ``size`` bytes; send it with ``PATCH`` in parts, then ``commit``.
    The tenant's dataset quota is checked now, before any byte is sent.

    Args:
        body (UploadCreate): Open a resumable upload (``POST /datasets/uploads``): the file's
            size, and optionally its
            digest, checked before it is parsed.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UploadPublic
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
