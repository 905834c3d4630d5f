from http import HTTPStatus
from typing import Any
from urllib.parse import quote

import httpx

from ... import errors
from ...client import AuthenticatedClient, Client
from ...models.mlflow_export_public import MlflowExportPublic
from ...models.mlflow_export_request import MlflowExportRequest
from ...models.problem import Problem
from ...types import UNSET, Response, Unset


def _get_kwargs(
    job_id: str,
    *,
    body: MlflowExportRequest | None | Unset = UNSET,
) -> dict[str, Any]:
    headers: dict[str, Any] = {}

    _kwargs: dict[str, Any] = {
        "method": "post",
        "url": "/jobs/{job_id}/exports/mlflow".format(
            job_id=quote(str(job_id), safe=""),
        ),
    }

    if isinstance(body, MlflowExportRequest):
        _kwargs["json"] = body.to_dict()
    else:
        _kwargs["json"] = body

    headers["Content-Type"] = "application/json"

    _kwargs["headers"] = headers
    return _kwargs


def _parse_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> MlflowExportPublic | Problem | None:
    if response.status_code == 201:
        response_201 = MlflowExportPublic.from_dict(response.json())

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

    if response.status_code == 503:
        response_503 = Problem.from_dict(response.json())

        return response_503

    if client.raise_on_unexpected_status:
        raise errors.UnexpectedStatus(response.status_code, response.content)
    else:
        return None


def _build_response(
    *, client: AuthenticatedClient | Client, response: httpx.Response
) -> Response[MlflowExportPublic | Problem]:
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
    body: MlflowExportRequest | None | Unset = UNSET,
) -> Response[MlflowExportPublic | Problem]:
    """Export Job Mlflow

     Log the succeeded job as a new run on the MLflow tracking server of the setting
    ``SAL_MLFLOW_TRACKING_URI``: parameters, per-environment metrics, θ and w as artifacts and the
    model as an MLflow model that ``mlflow.pyfunc.load_model`` loads. Each call makes a new run.

    Args:
        job_id (str):
        body (MlflowExportRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MlflowExportPublic | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
    )

    response = client.get_httpx_client().request(
        **kwargs,
    )

    return _build_response(client=client, response=response)


def sync(
    job_id: str,
    *,
    client: AuthenticatedClient,
    body: MlflowExportRequest | None | Unset = UNSET,
) -> MlflowExportPublic | Problem | None:
    """Export Job Mlflow

     Log the succeeded job as a new run on the MLflow tracking server of the setting
    ``SAL_MLFLOW_TRACKING_URI``: parameters, per-environment metrics, θ and w as artifacts and the
    model as an MLflow model that ``mlflow.pyfunc.load_model`` loads. Each call makes a new run.

    Args:
        job_id (str):
        body (MlflowExportRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MlflowExportPublic | Problem
    """

    return sync_detailed(
        job_id=job_id,
        client=client,
        body=body,
    ).parsed


async def asyncio_detailed(
    job_id: str,
    *,
    client: AuthenticatedClient,
    body: MlflowExportRequest | None | Unset = UNSET,
) -> Response[MlflowExportPublic | Problem]:
    """Export Job Mlflow

     Log the succeeded job as a new run on the MLflow tracking server of the setting
    ``SAL_MLFLOW_TRACKING_URI``: parameters, per-environment metrics, θ and w as artifacts and the
    model as an MLflow model that ``mlflow.pyfunc.load_model`` loads. Each call makes a new run.

    Args:
        job_id (str):
        body (MlflowExportRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        Response[MlflowExportPublic | Problem]
    """

    kwargs = _get_kwargs(
        job_id=job_id,
        body=body,
    )

    response = await client.get_async_httpx_client().request(**kwargs)

    return _build_response(client=client, response=response)


async def asyncio(
    job_id: str,
    *,
    client: AuthenticatedClient,
    body: MlflowExportRequest | None | Unset = UNSET,
) -> MlflowExportPublic | Problem | None:
    """Export Job Mlflow

     Log the succeeded job as a new run on the MLflow tracking server of the setting
    ``SAL_MLFLOW_TRACKING_URI``: parameters, per-environment metrics, θ and w as artifacts and the
    model as an MLflow model that ``mlflow.pyfunc.load_model`` loads. Each call makes a new run.

    Args:
        job_id (str):
        body (MlflowExportRequest | None | Unset):

    Raises:
        errors.UnexpectedStatus: If the server returns an undocumented status code and Client.raise_on_unexpected_status is True.
        httpx.TimeoutException: If the request takes longer than Client.timeout.

    Returns:
        MlflowExportPublic | Problem
    """

    return (
        await asyncio_detailed(
            job_id=job_id,
            client=client,
            body=body,
        )
    ).parsed
