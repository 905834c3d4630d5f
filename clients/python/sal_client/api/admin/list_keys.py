from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.keys_public import KeysPublic
from ...models.list_keys_state_type_0 import ListKeysStateType0
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    tenant: None | str | Unset = UNSET,
    state: ListKeysStateType0 | None | Unset = UNSET,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_tenant: None | str | Unset
    if isinstance(tenant, Unset):
        json_tenant = UNSET
    else:
        json_tenant = tenant
    params["tenant"] = json_tenant

    json_state: None | str | Unset
    if isinstance(state, Unset):
        json_state = UNSET
    elif isinstance(state, ListKeysStateType0):
        json_state = state.value
    else:
        json_state = state
    params["state"] = json_state

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/admin/keys",
        "params": params,
    }

    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> KeysPublic | Problem | None:
    if response.status_code == 200:
        response_200 = KeysPublic.from_dict(response.json())

        return response_200

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
) -> Response[KeysPublic | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    tenant: None | str | Unset = UNSET,
    state: ListKeysStateType0 | None | Unset = UNSET,
) -> Response[KeysPublic | Problem]:
    """List Keys

     Every key, oldest first: id, tenant, name, prefix, scopes, state and times; never a secret.

    Args:
        tenant (None | str | Unset): Only this tenant's keys.
        state (ListKeysStateType0 | None | Unset): Only keys in this state.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeysPublic | Problem]
    """

    kwargs = _get_kwargs(
        tenant=tenant,
        state=state,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    *,
    client: AuthenticatedClient,
    tenant: None | str | Unset = UNSET,
    state: ListKeysStateType0 | None | Unset = UNSET,
) -> KeysPublic | Problem | None:
    """List Keys

     Every key, oldest first: id, tenant, name, prefix, scopes, state and times; never a secret.

    Args:
        tenant (None | str | Unset): Only this tenant's keys.
        state (ListKeysStateType0 | None | Unset): Only keys in this state.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeysPublic | Problem
    """

    return sync_detailed(
        client=client,
        tenant=tenant,
        state=state,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    tenant: None | str | Unset = UNSET,
    state: ListKeysStateType0 | None | Unset = UNSET,
) -> Response[KeysPublic | Problem]:
    """List Keys

     Every key, oldest first: id, tenant, name, prefix, scopes, state and times; never a secret.

    Args:
        tenant (None | str | Unset): Only this tenant's keys.
        state (ListKeysStateType0 | None | Unset): Only keys in this state.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[KeysPublic | Problem]
    """

    kwargs = _get_kwargs(
        tenant=tenant,
        state=state,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    tenant: None | str | Unset = UNSET,
    state: ListKeysStateType0 | None | Unset = UNSET,
) -> KeysPublic | Problem | None:
    """List Keys

     Every key, oldest first: id, tenant, name, prefix, scopes, state and times; never a secret.

    Args:
        tenant (None | str | Unset): Only this tenant's keys.
        state (ListKeysStateType0 | None | Unset): Only keys in this state.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        KeysPublic | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            tenant=tenant,
            state=state,
        )
    ).parsed
