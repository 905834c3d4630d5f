"""Log a succeeded job to an MLflow tracking server (``POST /jobs/{id}/exports/mlflow``).

One export is one new MLflow run in the experiment the request names, on the tracking server of
``settings.mlflow_tracking_uri`` (never a URI from the request). The run holds

* params: the algorithm, task, seed, model, environments and every resolved hyper-parameter;
* metrics: each environment's metrics as ``<split>/<environment>/<metric>`` (``test/site 3/mse``),
  the test summary (``test/mean_error``, ``test/std_error``, ``test/worst_error``), the certificate
  (``certificate/rho_hat``, ``certificate/worst_case_risk``) and ``duration_s``;
* artifacts: ``sal/coefficients.json`` (θ and b by feature, in the covariates' units),
  ``sal/covariate_weights.json`` (w by feature), ``sal/encoding.json`` (how the dataset's columns
  became the features), ``sal/model.safetensors`` (the service's own file)
  and ``model/``, an MLflow model of the ONNX flavour (:mod:`app.jobs.onnx_export`) that loads with
  ``mlflow.pyfunc.load_model("runs:/<run_id>/model")`` and predicts from a DataFrame of the
  features (its signature names them), needing onnxruntime but no sal-service code.

Needs the ``mlflow`` extra (``pip install 'sal-service[mlflow]'``), imported on use.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any

import httpx
from pydantic import BaseModel, Field
from sqlalchemy.orm import Session

from app.db.models import Job
from app.errors import ServiceUnavailable
from app.jobs import artifacts, onnx_export
from app.jobs import service as jobs_service
from app.jobs.result import JobResult
from app.settings import Settings
from sal_core import FittedModel

DEFAULT_EXPERIMENT = "sal-service"
PARAM_VALUE_CHARS = 6000  # MLflow's limit on a param value
_INVALID_KEY_CHARS = re.compile(r"[^\w\-./ :]")  # MLflow keys: alphanumerics, _ - . / space :
PROBE_TIMEOUT_S = 5.0


class MlflowExportRequest(BaseModel):
    experiment: str = Field(
        default=DEFAULT_EXPERIMENT,
        min_length=1,
        max_length=500,
        description="MLflow experiment to log into; created when it does not exist.",
    )
    run_name: str | None = Field(
        default=None, max_length=250, description="The run's name; default: sal-job-<job id>."
    )


class MlflowExportPublic(BaseModel):
    run_id: str
    experiment_id: str
    tracking_uri: str
    artifact_uri: str
    model_uri: str = Field(description="Load it with mlflow.pyfunc.load_model(model_uri).")


def metric_key(*parts: str) -> str:
    """A metric or param key MLflow accepts: characters it refuses become ``_``."""
    return "/".join(_INVALID_KEY_CHARS.sub("_", p) for p in parts)


def run_params(job: Job) -> dict[str, str]:
    params: dict[str, Any] = {
        "algorithm": job.algorithm,
        "task": job.task,
        "seed": job.seed,
        "model": json.dumps(job.model),
        "train_environments": json.dumps(job.train_environments),
        "test_environments": json.dumps(job.test_environments),
        "validation": json.dumps(job.validation),
        "dataset_id": job.dataset_id,
        **{f"params.{k}": v for k, v in sorted((job.params or {}).items())},
    }
    return {metric_key(k): str(v)[:PARAM_VALUE_CHARS] for k, v in params.items()}


def run_metrics(result: JobResult) -> dict[str, float]:
    metrics: dict[str, float] = {}
    for env in result.environments:
        for name, value in env.metrics().items():
            if isinstance(value, int | float):
                metrics[metric_key(env.split, env.name, name)] = float(value)
    if result.summary is not None:
        for name in ("mean_error", "std_error", "worst_error"):
            metrics[f"test/{name}"] = float(getattr(result.summary, name))
    if result.certificate is not None:
        metrics["certificate/rho_hat"] = float(result.certificate.rho_hat)
        metrics["certificate/worst_case_risk"] = float(result.certificate.worst_case_risk)
    if result.reference is not None:
        ref = result.reference
        metrics[f"reference/{ref.algorithm}_mean_error"] = float(ref.mean_error)
        metrics["reference/difference"] = float(ref.difference)
        metrics["reference/standard_error"] = float(ref.standard_error)
    metrics["duration_s"] = float(result.duration_s)
    return metrics


def export_job(
    session: Session, settings: Settings, job: Job, request: MlflowExportRequest
) -> MlflowExportPublic:
    """Log ``job`` (succeeded) as a new run; 409 for a job without a model, 503 when no tracking
    server is configured or it cannot be reached."""
    uri = settings.mlflow_tracking_uri
    if not uri:
        raise ServiceUnavailable(
            "no MLflow tracking server is configured: set SAL_MLFLOW_TRACKING_URI on the API server"
        )
    weights = onnx_export.succeeded_weights(session, job)
    model = artifacts.unpack(weights)
    metadata = {**artifacts.metadata_of(weights), **onnx_export.encoding_metadata(session, job)}
    result = jobs_service.stored_result(session, job.id)
    assert result is not None  # a succeeded job has its result row
    _probe(uri)
    try:
        from mlflow.tracking import MlflowClient
    except ImportError as exc:  # pragma: no cover - the mlflow extra is in dev, so tests have it
        raise ServiceUnavailable(
            "MLflow export needs the mlflow extra on the API server: pip install 'sal-service[mlflow]'"
        ) from exc
    client = MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name(request.experiment)
    experiment_id = (
        experiment.experiment_id if experiment is not None else client.create_experiment(request.experiment)
    )
    run = client.create_run(
        experiment_id,
        run_name=request.run_name or f"sal-job-{job.id}",
        tags={"sal.job_id": job.id, "sal.algorithm": job.algorithm, "sal.producer": "sal-service"},
    )
    run_id = run.info.run_id
    try:
        _log_run(client, run_id, job, result, model, metadata, weights)
    except Exception:
        client.set_terminated(run_id, "FAILED")
        raise
    client.set_terminated(run_id, "FINISHED")
    return MlflowExportPublic(
        run_id=run_id,
        experiment_id=str(experiment_id),
        tracking_uri=uri,
        artifact_uri=run.info.artifact_uri,
        model_uri=f"runs:/{run_id}/model",
    )


def _probe(uri: str) -> None:
    """An HTTP tracking server must answer before we start (MLflow's client retries for minutes)."""
    if not uri.startswith(("http://", "https://")):
        return
    try:
        httpx.get(uri.rstrip("/") + "/health", timeout=PROBE_TIMEOUT_S)
    except httpx.HTTPError as exc:
        raise ServiceUnavailable(f"the MLflow tracking server at {uri} cannot be reached: {exc}") from None


def _log_run(
    client: Any,
    run_id: str,
    job: Job,
    result: JobResult,
    model: FittedModel,
    metadata: dict[str, str],
    weights: bytes,
) -> None:
    from mlflow.entities import Metric, Param
    from mlflow.utils.time import get_current_time_millis

    now = get_current_time_millis()
    client.log_batch(
        run_id,
        metrics=[Metric(k, v, now, 0) for k, v in run_metrics(result).items()],
        params=[Param(k, v) for k, v in run_params(job).items()],
    )
    client.log_dict(
        run_id,
        {"coefficients": result.coefficients, "intercept": result.intercept},
        "sal/coefficients.json",
    )
    client.log_dict(run_id, {"covariate_weights": result.covariate_weights}, "sal/covariate_weights.json")
    if "encoding" in metadata:
        client.log_dict(run_id, json.loads(metadata["encoding"]), "sal/encoding.json")
    with tempfile.TemporaryDirectory() as tmp:
        native = Path(tmp) / "model.safetensors"
        native.write_bytes(weights)
        client.log_artifact(run_id, str(native), "sal")
        model_dir = Path(tmp) / "model"
        _save_onnx_model(model, metadata, model_dir)
        client.log_artifacts(run_id, str(model_dir), "model")


def _save_onnx_model(model: FittedModel, metadata: dict[str, str], path: Path) -> None:
    import mlflow.onnx
    import onnx
    from mlflow.models import ModelSignature
    from mlflow.types import ColSpec, Schema

    graph = onnx.load_from_string(onnx_export.to_onnx(model, metadata))
    signature = ModelSignature(inputs=Schema([ColSpec("double", name) for name in model.feature_names]))
    mlflow.onnx.save_model(graph, str(path), signature=signature, save_as_external_data=False)


__all__ = ["MlflowExportPublic", "MlflowExportRequest", "export_job", "run_metrics", "run_params"]
