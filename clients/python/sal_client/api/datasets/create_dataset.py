from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dataset_create import DatasetCreate
from ...models.dataset_public import DatasetPublic
from ...models.dataset_upload import DatasetUpload
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    *,
    body: DatasetCreate | DatasetUpload | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/datasets",
    }

    if isinstance(body, DatasetCreate):
        _kwargs["json"] = body.to_dict()

        headers["Content-Type"] = "application/json"
    if isinstance(body, DatasetUpload):
        _kwargs["files"] = body.to_multipart()

        headers["Content-Type"] = "multipart/form-data; boundary=+++"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> DatasetPublic | Problem | None:
    if response.status_code == 200:
        response_200 = DatasetPublic.from_dict(response.json())

        return response_200

    if response.status_code == 201:
        response_201 = DatasetPublic.from_dict(response.json())

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
) -> Response[DatasetPublic | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    *,
    client: AuthenticatedClient,
    body: DatasetCreate | DatasetUpload | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DatasetPublic | Problem]:
    """Create Dataset

     Upload a CSV or Parquet file (multipart) or a JSON body. Content-addressed: the same table
    uploaded again returns the stored dataset with status 200. With an ``Idempotency-Key`` a retry
    returns the first response.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (DatasetCreate): The JSON form of an upload.
        body (DatasetUpload): The multipart form of an upload (documented in OpenAPI; parsed by
            hand).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetPublic | Problem]
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
    body: DatasetCreate | DatasetUpload | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> DatasetPublic | Problem | None:
    """Create Dataset

     Upload a CSV or Parquet file (multipart) or a JSON body. Content-addressed: the same table
    uploaded again returns the stored dataset with status 200. With an ``Idempotency-Key`` a retry
    returns the first response.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (DatasetCreate): The JSON form of an upload.
        body (DatasetUpload): The multipart form of an upload (documented in OpenAPI; parsed by
            hand).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetPublic | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DatasetCreate | DatasetUpload | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DatasetPublic | Problem]:
    """Create Dataset

     Upload a CSV or Parquet file (multipart) or a JSON body. Content-addressed: the same table
    uploaded again returns the stored dataset with status 200. With an ``Idempotency-Key`` a retry
    returns the first response.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (DatasetCreate): The JSON form of an upload.
        body (DatasetUpload): The multipart form of an upload (documented in OpenAPI; parsed by
            hand).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetPublic | Problem]
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
    body: DatasetCreate | DatasetUpload | Unset = UNSET,
    idempotency_key: None | str | Unset = UNSET,
) -> DatasetPublic | Problem | None:
    """Create Dataset

     Upload a CSV or Parquet file (multipart) or a JSON body. Content-addressed: the same table
    uploaded again returns the stored dataset with status 200. With an ``Idempotency-Key`` a retry
    returns the first response.

    Args:
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (DatasetCreate): The JSON form of an upload.
        body (DatasetUpload): The multipart form of an upload (documented in OpenAPI; parsed by
            hand).

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetPublic | Problem
    """

    return (
        await asyncio_detailed(
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
