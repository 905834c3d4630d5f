from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.dataset_public import DatasetPublic
from ...models.problem import Problem
from ...models.upload_commit import UploadCommit
from ...types import UNSET, Response, Unset


def _get_kwargs(
    upload_id: str,
    *,
    body: UploadCommit,
    idempotency_key: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(idempotency_key, Unset):
        headers["Idempotency-Key"] = idempotency_key

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/datasets/uploads/{upload_id}/commit".format(
            upload_id=quote(str(upload_id), safe=""),
        ),
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
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: UploadCommit,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DatasetPublic | Problem]:
    """Commit Upload

     Parse the complete file into a dataset, with the checks, content id and answers of
    ``POST /datasets`` (201, or 200 for content already stored). A file whose bytes differ from
    the declared ``sha256`` is a 422 and the upload is removed; nothing is stored.

    Args:
        upload_id (str):
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (UploadCommit): How to read the complete file: the fields of ``POST /datasets``'
            multipart form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetPublic | Problem]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: UploadCommit,
    idempotency_key: None | str | Unset = UNSET,
) -> DatasetPublic | Problem | None:
    """Commit Upload

     Parse the complete file into a dataset, with the checks, content id and answers of
    ``POST /datasets`` (201, or 200 for content already stored). A file whose bytes differ from
    the declared ``sha256`` is a 422 and the upload is removed; nothing is stored.

    Args:
        upload_id (str):
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (UploadCommit): How to read the complete file: the fields of ``POST /datasets``'
            multipart form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetPublic | Problem
    """

    return sync_detailed(
        upload_id=upload_id,
        client=client,
        body=body,
        idempotency_key=idempotency_key,
    ).parsed


async def asyncio_detailed(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: UploadCommit,
    idempotency_key: None | str | Unset = UNSET,
) -> Response[DatasetPublic | Problem]:
    """Commit Upload

     Parse the complete file into a dataset, with the checks, content id and answers of
    ``POST /datasets`` (201, or 200 for content already stored). A file whose bytes differ from
    the declared ``sha256`` is a 422 and the upload is removed; nothing is stored.

    Args:
        upload_id (str):
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (UploadCommit): How to read the complete file: the fields of ``POST /datasets``'
            multipart form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[DatasetPublic | Problem]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        body=body,
        idempotency_key=idempotency_key,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: UploadCommit,
    idempotency_key: None | str | Unset = UNSET,
) -> DatasetPublic | Problem | None:
    """Commit Upload

     Parse the complete file into a dataset, with the checks, content id and answers of
    ``POST /datasets`` (201, or 200 for content already stored). A file whose bytes differ from
    the declared ``sha256`` is a 422 and the upload is removed; nothing is stored.

    Args:
        upload_id (str):
        idempotency_key (None | str | Unset): Makes a retry safe: a repeat with the same key and
            body returns the first response.
        body (UploadCommit): How to read the complete file: the fields of ``POST /datasets``'
            multipart form.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        DatasetPublic | Problem
    """

    return (
        await asyncio_detailed(
            upload_id=upload_id,
            client=client,
            body=body,
            idempotency_key=idempotency_key,
        )
    ).parsed
