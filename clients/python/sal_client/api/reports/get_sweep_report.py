from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.get_sweep_report_figures import GetSweepReportFigures
from ...models.get_sweep_report_format import GetSweepReportFormat
from ...models.get_sweep_report_response_200 import GetSweepReportResponse200
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    sweep_id: str,
    *,
    format_: GetSweepReportFormat | Unset = GetSweepReportFormat.JSON,
    figures: GetSweepReportFigures | Unset = GetSweepReportFigures.PNG,
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
        "url": "/sweeps/{sweep_id}/report".format(
            sweep_id=quote(str(sweep_id), safe=""),
        ),
        "params": params,
    }

    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> GetSweepReportResponse200 | Problem | None:
    if response.status_code == 200:
        response_200 = GetSweepReportResponse200.from_dict(response.json())

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
) -> Response[GetSweepReportResponse200 | Problem]:
    return Response(
        status_code=HTTPStatus(response.status_code),
        content=response.content,
        headers=response.headers,
        parsed=_parse_response(client=client, response=response),
    )


def sync_detailed(
    sweep_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetSweepReportFormat | Unset = GetSweepReportFormat.JSON,
    figures: GetSweepReportFigures | Unset = GetSweepReportFigures.PNG,
) -> Response[GetSweepReportResponse200 | Problem]:
    """Get Sweep Report

     The leaderboard (labelled when selection is oracle), per-environment test error by method,
    w and θ per covariate of the selected models, and R(θ) and w over rounds.

    Args:
        sweep_id (str):
        format_ (GetSweepReportFormat | Unset): json (default), markdown or html Default:
            GetSweepReportFormat.JSON.
        figures (GetSweepReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetSweepReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetSweepReportResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        sweep_id=sweep_id,
        format_=format_,
        figures=figures,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    sweep_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetSweepReportFormat | Unset = GetSweepReportFormat.JSON,
    figures: GetSweepReportFigures | Unset = GetSweepReportFigures.PNG,
) -> GetSweepReportResponse200 | Problem | None:
    """Get Sweep Report

     The leaderboard (labelled when selection is oracle), per-environment test error by method,
    w and θ per covariate of the selected models, and R(θ) and w over rounds.

    Args:
        sweep_id (str):
        format_ (GetSweepReportFormat | Unset): json (default), markdown or html Default:
            GetSweepReportFormat.JSON.
        figures (GetSweepReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetSweepReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetSweepReportResponse200 | Problem
    """

    return sync_detailed(
        sweep_id=sweep_id,
        client=client,
        format_=format_,
        figures=figures,
    ).parsed


async def asyncio_detailed(
    sweep_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetSweepReportFormat | Unset = GetSweepReportFormat.JSON,
    figures: GetSweepReportFigures | Unset = GetSweepReportFigures.PNG,
) -> Response[GetSweepReportResponse200 | Problem]:
    """Get Sweep Report

     The leaderboard (labelled when selection is oracle), per-environment test error by method,
    w and θ per covariate of the selected models, and R(θ) and w over rounds.

    Args:
        sweep_id (str):
        format_ (GetSweepReportFormat | Unset): json (default), markdown or html Default:
            GetSweepReportFormat.JSON.
        figures (GetSweepReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetSweepReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[GetSweepReportResponse200 | Problem]
    """

    kwargs = _get_kwargs(
        sweep_id=sweep_id,
        format_=format_,
        figures=figures,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    sweep_id: str,
    *,
    client: AuthenticatedClient,
    format_: GetSweepReportFormat | Unset = GetSweepReportFormat.JSON,
    figures: GetSweepReportFigures | Unset = GetSweepReportFigures.PNG,
) -> GetSweepReportResponse200 | Problem | None:
    """Get Sweep Report

     The leaderboard (labelled when selection is oracle), per-environment test error by method,
    w and θ per covariate of the selected models, and R(θ) and w over rounds.

    Args:
        sweep_id (str):
        format_ (GetSweepReportFormat | Unset): json (default), markdown or html Default:
            GetSweepReportFormat.JSON.
        figures (GetSweepReportFigures | Unset): html: embed figures as base64 PNG or inline SVG
            Default: GetSweepReportFigures.PNG.

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        GetSweepReportResponse200 | Problem
    """

    return (
        await asyncio_detailed(
            sweep_id=sweep_id,
            client=client,
            format_=format_,
            figures=figures,
        )
    ).parsed
