from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.key_create import KeyCreate
from ...models.key_created import KeyCreated
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: KeyCreate,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/admin/keys",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> KeyCreated | Problem | None:
    if response.status_code == 201:
        response_201 = KeyCreated.from_dict(response.json())

        return response_201

    if response.status_code == 401:
        response_401 = Problem.from_dict(response.json())

        return response_401

    if response.status_code == 403:
        response_403 = Problem.from_dict(response.json())

        return response_403

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[KeyCreated | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: KeyCreate,
) -> Response[KeyCreated | Problem]:
    """Create Key

     A new API key for ``tenant`` with its scopes and expiry. The answer holds the key itself,
    which is shown this once (only its sha256 is stored).

    Args:
        body (KeyCreate): A new key for ``tenant`` (the tenant is created if it is new).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyCreated | Problem]
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
    body: KeyCreate,
) -> KeyCreated | Problem | None:
    """Create Key

     A new API key for ``tenant`` with its scopes and expiry. The answer holds the key itself,
    which is shown this once (only its sha256 is stored).

    Args:
        body (KeyCreate): A new key for ``tenant`` (the tenant is created if it is new).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyCreated | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: KeyCreate,
) -> Response[KeyCreated | Problem]:
    """Create Key

     A new API key for ``tenant`` with its scopes and expiry. The answer holds the key itself,
    which is shown this once (only its sha256 is stored).

    Args:
        body (KeyCreate): A new key for ``tenant`` (the tenant is created if it is new).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeyCreated | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: KeyCreate,
) -> KeyCreated | Problem | None:
    """Create Key

     A new API key for ``tenant`` with its scopes and expiry. The answer holds the key itself,
    which is shown this once (only its sha256 is stored).

    Args:
        body (KeyCreate): A new key for ``tenant`` (the tenant is created if it is new).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeyCreated | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
        )
    ).parsed
