from http import HTTPStatus
from typing import Any

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dataset_public import DatasetPublic
from ...models.dataset_reference import DatasetReference
from ...models.problem import Problem
from ...types import Response


def _get_kwargs(
    *,
    body: DatasetReference,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/datasets/references",
    }

    _kwargs["json"] = body.to_dict()

    headers["Content-Type"] = "application/json"

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

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

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
    body: DatasetReference,
) -> Response[DatasetPublic | Problem]:
    """Register Dataset Reference

     Register Parquet files already in a bucket (``s3://bucket/prefix``, read with the service's
    S3 settings) as a dataset. The files' footers are checked first (columns, types, rows, the
    environment column): a bad reference is a 422 before any row is read.

    Args:
        body (DatasetReference): Parquet files in a bucket to register as one dataset.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetPublic | Problem]
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
    body: DatasetReference,
) -> DatasetPublic | Problem | None:
    """Register Dataset Reference

     Register Parquet files already in a bucket (``s3://bucket/prefix``, read with the service's
    S3 settings) as a dataset. The files' footers are checked first (columns, types, rows, the
    environment column): a bad reference is a 422 before any row is read.

    Args:
        body (DatasetReference): Parquet files in a bucket to register as one dataset.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetPublic | Problem
    """

    return sync_detailed(
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    *,
    client: AuthenticatedClient,
    body: DatasetReference,
) -> Response[DatasetPublic | Problem]:
    """Register Dataset Reference

     Register Parquet files already in a bucket (``s3://bucket/prefix``, read with the service's
    S3 settings) as a dataset. The files' footers are checked first (columns, types, rows, the
    environment column): a bad reference is a 422 before any row is read.

    Args:
        body (DatasetReference): Parquet files in a bucket to register as one dataset.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetPublic | Problem]
    """

    kwargs = _get_kwargs(
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    *,
    client: AuthenticatedClient,
    body: DatasetReference,
) -> DatasetPublic | Problem | None:
    """Register Dataset Reference

     Register Parquet files already in a bucket (``s3://bucket/prefix``, read with the service's
    S3 settings) as a dataset. The files' footers are checked first (columns, types, rows, the
    environment column): a bad reference is a 422 before any row is read.

    Args:
        body (DatasetReference): Parquet files in a bucket to register as one dataset.

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
        )
    ).parsed
