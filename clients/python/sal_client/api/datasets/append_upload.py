from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.problem import Problem
from ...models.upload_public import UploadPublic
from ...types import UNSET, File, Response, Unset


def _get_kwargs(
    upload_id: str,
    *,
    body: File,
    upload_offset: int,
    upload_checksum: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    headers["Upload-Offset"] = str(upload_offset)

    if not isinstance(upload_checksum, Unset):
        headers["Upload-Checksum"] = upload_checksum

    _kwargs: dict[str, Any] = {
        "method": "patch",
        "url": "/datasets/uploads/{upload_id}".format(
            upload_id=quote(str(upload_id), safe=""),
        ),
    }

    _kwargs["content"] = body.payload
    headers["Content-Type"] = "application/octet-stream"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(*, client: AuthenticatedClient | Client, response: httpx.Response) -> Problem | UploadPublic | None:
    if response.status_code == 200:
        response_200 = UploadPublic.from_dict(response.json())

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
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    upload_offset: int,
    upload_checksum: None | str | Unset = UNSET,
) -> Response[Problem | UploadPublic]:
    """Append Upload

     Append the body at ``Upload-Offset``, which must equal the upload's offset (else a 409 that
    names it). A part cut off midway keeps the bytes that arrived: ask ``GET`` (or ``HEAD``) for the
    offset and send the rest from there.

    Args:
        upload_id (str):
        upload_offset (int): Where this part starts: the upload's offset.
        upload_checksum (None | str | Unset): 'sha256 <base64 digest of this part>': a part that
            differs is dropped (422).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UploadPublic]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        body=body,
        upload_offset=upload_offset,
        upload_checksum=upload_checksum,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    upload_offset: int,
    upload_checksum: None | str | Unset = UNSET,
) -> Problem | UploadPublic | None:
    """Append Upload

     Append the body at ``Upload-Offset``, which must equal the upload's offset (else a 409 that
    names it). A part cut off midway keeps the bytes that arrived: ask ``GET`` (or ``HEAD``) for the
    offset and send the rest from there.

    Args:
        upload_id (str):
        upload_offset (int): Where this part starts: the upload's offset.
        upload_checksum (None | str | Unset): 'sha256 <base64 digest of this part>': a part that
            differs is dropped (422).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UploadPublic
    """

    return sync_detailed(
        upload_id=upload_id,
        client=client,
        body=body,
        upload_offset=upload_offset,
        upload_checksum=upload_checksum,
    ).parsed


async def asyncio_detailed(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    upload_offset: int,
    upload_checksum: None | str | Unset = UNSET,
) -> Response[Problem | UploadPublic]:
    """Append Upload

     Append the body at ``Upload-Offset``, which must equal the upload's offset (else a 409 that
    names it). A part cut off midway keeps the bytes that arrived: ask ``GET`` (or ``HEAD``) for the
    offset and send the rest from there.

    Args:
        upload_id (str):
        upload_offset (int): Where this part starts: the upload's offset.
        upload_checksum (None | str | Unset): 'sha256 <base64 digest of this part>': a part that
            differs is dropped (422).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Problem | UploadPublic]
    """

    kwargs = _get_kwargs(
        upload_id=upload_id,
        body=body,
        upload_offset=upload_offset,
        upload_checksum=upload_checksum,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    upload_id: str,
    *,
    client: AuthenticatedClient,
    body: File,
    upload_offset: int,
    upload_checksum: None | str | Unset = UNSET,
) -> Problem | UploadPublic | None:
    """Append Upload

     Append the body at ``Upload-Offset``, which must equal the upload's offset (else a 409 that
    names it). A part cut off midway keeps the bytes that arrived: ask ``GET`` (or ``HEAD``) for the
    offset and send the rest from there.

    Args:
        upload_id (str):
        upload_offset (int): Where this part starts: the upload's offset.
        upload_checksum (None | str | Unset): 'sha256 <base64 digest of this part>': a part that
            differs is dropped (422).
        body (File):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Problem | UploadPublic
    """

    return (
        await asyncio_detailed(
            upload_id=upload_id,
            client=client,
            body=body,
            upload_offset=upload_offset,
            upload_checksum=upload_checksum,
        )
    ).parsed
