from http import HTTPStatus
from typing import Any, cast
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_job_events_response_200_type_1 import GetJobEventsResponse200Type1
from ...models.get_job_events_response_200_type_2 import GetJobEventsResponse200Type2
from ...models.get_job_events_response_200_type_3 import GetJobEventsResponse200Type3
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    last_event_id: None | str | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}
    if not isinstance(last_event_id, Unset):
        headers["last-event-id"] = last_event_id

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/jobs/{job_id}/events".format(
            job_id=quote(str(job_id), safe=""),
        ),
    }

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> (
    Any
    | GetJobEventsResponse200Type1
    | GetJobEventsResponse200Type2
    | GetJobEventsResponse200Type3
    | str
    | Problem
    | None
):
    if response.status_code == 200:

        def _parse_response_200(
            data: object,
        ) -> GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str:
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_1 = GetJobEventsResponse200Type1.from_dict(data)

                return response_200_type_1
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_2 = GetJobEventsResponse200Type2.from_dict(data)

                return response_200_type_2
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                response_200_type_3 = GetJobEventsResponse200Type3.from_dict(data)

                return response_200_type_3
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(
                GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str, data
            )

        response_200 = _parse_response_200(response.text)

        return response_200

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

    if response.status_code == 422:
        response_422 = Problem.from_dict(response.json())

        return response_422

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[
    Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem
]:
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
    last_event_id: None | str | Unset = UNSET,
) -> Response[
    Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem
]:
    """Job Events

     Follow a job until it ends: status and progress as they change, then a final event.

    Args:
        job_id (str):
        last_event_id (None | str | Unset): Resume after this event id

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        last_event_id=last_event_id,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    last_event_id: None | str | Unset = UNSET,
) -> (
    Any
    | GetJobEventsResponse200Type1
    | GetJobEventsResponse200Type2
    | GetJobEventsResponse200Type3
    | str
    | Problem
    | None
):
    """Job Events

     Follow a job until it ends: status and progress as they change, then a final event.

    Args:
        job_id (str):
        last_event_id (None | str | Unset): Resume after this event id

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        last_event_id=last_event_id,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    last_event_id: None | str | Unset = UNSET,
) -> Response[
    Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem
]:
    """Job Events

     Follow a job until it ends: status and progress as they change, then a final event.

    Args:
        job_id (str):
        last_event_id (None | str | Unset): Resume after this event id

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        last_event_id=last_event_id,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    last_event_id: None | str | Unset = UNSET,
) -> (
    Any
    | GetJobEventsResponse200Type1
    | GetJobEventsResponse200Type2
    | GetJobEventsResponse200Type3
    | str
    | Problem
    | None
):
    """Job Events

     Follow a job until it ends: status and progress as they change, then a final event.

    Args:
        job_id (str):
        last_event_id (None | str | Unset): Resume after this event id

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Any | GetJobEventsResponse200Type1 | GetJobEventsResponse200Type2 | GetJobEventsResponse200Type3 | str | Problem
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            last_event_id=last_event_id,
        )
    ).parsed
