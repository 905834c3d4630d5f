"""A succeeded job's model for other tools: an ONNX file, and a run on an MLflow tracking server."""

from __future__ import annotations

from fastapi import APIRouter, Response

from app.api.deps import PrincipalDep, SessionDep, SettingsDep
from app.api.errors import responses
from app.jobs import mlflow_export, onnx_export
from app.jobs import service as jobs_service
from app.jobs.mlflow_export import MlflowExportPublic, MlflowExportRequest

router = APIRouter(prefix="/jobs", tags=["jobs"])


@router.get(
    "/{job_id}/model.onnx",
    operation_id="get_job_onnx",
    response_model=None,
    response_class=Response,
    responses={
        200: {
            "description": "An ONNX model: input X (double [N, p], raw covariates in feature order); "
            "outputs prediction (regression) or label, probability and logit (classification)",
            "content": {"application/octet-stream": {"schema": {"type": "string", "format": "binary"}}},
        },
        **responses(401, 404, 409),
    },
)
def get_job_onnx(job_id: str, session: SessionDep, principal: PrincipalDep) -> Response:
    """The succeeded job's model as ONNX, standardisation inside the graph: onnxruntime predicts
    from raw covariates what POST /jobs/{id}/predict does (see docs/interop.md)."""
    job = jobs_service.get_job(session, job_id, principal.tenant_id)
    return Response(
        onnx_export.job_onnx(session, job),
        media_type="application/octet-stream",
        headers={"Content-Disposition": f'attachment; filename="job-{job_id}.onnx"'},
    )


@router.post(
    "/{job_id}/exports/mlflow",
    operation_id="export_job_mlflow",
    status_code=201,
    response_model=MlflowExportPublic,
    responses=responses(401, 404, 409, 422, 503),
)
def export_job_mlflow(
    job_id: str,
    session: SessionDep,
    settings: SettingsDep,
    principal: PrincipalDep,
    body: MlflowExportRequest | None = None,
) -> MlflowExportPublic:
    """Log the succeeded job as a new run on the MLflow tracking server of the setting
    ``SAL_MLFLOW_TRACKING_URI``: parameters, per-environment metrics, θ and w as artifacts and the
    model as an MLflow model that ``mlflow.pyfunc.load_model`` loads. Each call makes a new run."""
    job = jobs_service.get_job(session, job_id, principal.tenant_id)
    return mlflow_export.export_job(session, settings, job, body or MlflowExportRequest())
