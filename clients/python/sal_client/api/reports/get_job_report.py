from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_job_report_figures import GetJobReportFigures
from ...models.get_job_report_format import GetJobReportFormat
from ...models.get_job_report_response_200 import GetJobReportResponse200
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    format_: GetJobReportFormat | Unset = GetJobReportFormat.JSON,
    figures: GetJobReportFigures | Unset = GetJobReportFigures.PNG,
) -> dict[str, Any]:

    params: dict[str, Any] = {}

    json_format_: str | Unset = UNSET
    if not isinstance(format_, Unset):
        json_format_ = format_.value

    params["format"] = json_format_

    json_figures: str | Unset = UNSET
    if not isinstance(figures, Unset):
        json_figures = figures.value

    params["figures"] = json_figures

    params = {k: v for k, v in params.items() if v is not UNSET and v is not None}

    _kwargs: dict[str, Any] = {
        "method": "get",
        "url": "/jobs/{job_id}/report".format(
            job_id=quote(str(job_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GetJobReportResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GetJobReportResponse200.from_dict(response.json())

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
) -> Response[GetJobReportResponse200 | Problem]:
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
    format_: GetJobReportFormat | Unset = GetJobReportFormat.JSON,
    figures: GetJobReportFigures | Unset = GetJobReportFigures.PNG,
) -> Response[GetJobReportResponse200 | Problem]:
    """Get Job Report

     Per-environment error, learned w and θ per covariate, R(θ) and w over rounds, and the
    reproducibility record. Shows the result GET /jobs/{id} shows: a job cancelled while running
    reports its partial fit (and says so).

    Args:
        job_id (str):
        format_ (GetJobReportFormat | Unset): json (default), markdown or html Default:
            GetJobReportFormat.JSON.
        figures (GetJobReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetJobReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetJobReportResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        format_=format_,
        figures=figures,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetJobReportFormat | Unset = GetJobReportFormat.JSON,
    figures: GetJobReportFigures | Unset = GetJobReportFigures.PNG,
) -> GetJobReportResponse200 | Problem | None:
    """Get Job Report

     Per-environment error, learned w and θ per covariate, R(θ) and w over rounds, and the
    reproducibility record. Shows the result GET /jobs/{id} shows: a job cancelled while running
    reports its partial fit (and says so).

    Args:
        job_id (str):
        format_ (GetJobReportFormat | Unset): json (default), markdown or html Default:
            GetJobReportFormat.JSON.
        figures (GetJobReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetJobReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetJobReportResponse200 | Problem
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        format_=format_,
        figures=figures,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetJobReportFormat | Unset = GetJobReportFormat.JSON,
    figures: GetJobReportFigures | Unset = GetJobReportFigures.PNG,
) -> Response[GetJobReportResponse200 | Problem]:
    """Get Job Report

     Per-environment error, learned w and θ per covariate, R(θ) and w over rounds, and the
    reproducibility record. Shows the result GET /jobs/{id} shows: a job cancelled while running
    reports its partial fit (and says so).

    Args:
        job_id (str):
        format_ (GetJobReportFormat | Unset): json (default), markdown or html Default:
            GetJobReportFormat.JSON.
        figures (GetJobReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetJobReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetJobReportResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        format_=format_,
        figures=figures,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetJobReportFormat | Unset = GetJobReportFormat.JSON,
    figures: GetJobReportFigures | Unset = GetJobReportFigures.PNG,
) -> GetJobReportResponse200 | Problem | None:
    """Get Job Report

     Per-environment error, learned w and θ per covariate, R(θ) and w over rounds, and the
    reproducibility record. Shows the result GET /jobs/{id} shows: a job cancelled while running
    reports its partial fit (and says so).

    Args:
        job_id (str):
        format_ (GetJobReportFormat | Unset): json (default), markdown or html Default:
            GetJobReportFormat.JSON.
        figures (GetJobReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetJobReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetJobReportResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            format_=format_,
            figures=figures,
        )
    ).parsed
