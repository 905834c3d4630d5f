"""A fitted model as an ONNX graph: raw covariates in, the service's predictions out.

The graph holds everything ``POST /jobs/{id}/predict`` does, in float64: the standardisation
z = (x - mean) / scale, then the linear model θᵀz + b or the MLP's layers, then for classification
the probability σ(logit) and the label 1[logit ≥ 0]. One input and named outputs:

    input   X            double [N, p]   raw covariates, columns in ``feature_names`` order
    output  prediction   double [N]      regression: the prediction
            label        double [N]      classification: 0 or 1 (as /predict's ``predictions``)
            probability  double [N]      classification: P(y = 1)
            logit        double [N]      classification: the model's output before σ

``metadata_props`` carry the feature names (JSON), the task, the job and its algorithm, w, and
``encoding`` (JSON): how the dataset's columns became the features (text values one-hot, missing
cells' fills and their ``"<column> is missing"`` features), to prepare a table's rows for ``X``.
onnxruntime runs it as it is::

    import onnxruntime as ort
    session = ort.InferenceSession("job.onnx")
    session.run(None, {"X": X.astype("float64")})

Needs the ``onnx`` extra (``pip install 'sal-service[onnx]'``), imported when a graph is built.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from sqlalchemy.orm import Session
from torch import nn

from app.db import repository as repo
from app.db.models import Job, JobStatus
from app.errors import Conflict
from app.jobs import artifacts
from app.jobs import service as jobs_service
from sal_core import FittedModel
from sal_core.models import LinearModel

OPSET = 17
"""ONNX opset of the graph: onnxruntime 1.14 onwards runs it."""
PRODUCER = "sal-service"
INPUT = "X"
ACTIVATIONS = {nn.ReLU: "Relu", nn.Tanh: "Tanh"}  # nn.GELU is built from Erf (exact GELU)


class OnnxUnavailable(RuntimeError):
    """The ``onnx`` package is not installed on this server."""


def succeeded_weights(session: Session, job: Job) -> bytes:
    """The safetensors bytes of a succeeded job's model; 409 for any other job."""
    weights = repo.get_weights(session, job.id) if job.status == JobStatus.SUCCEEDED else None
    if weights is None:
        raise Conflict(f"job {job.id} is {job.status}; its model exists once it has succeeded")
    return weights[0]


def job_onnx(session: Session, job: Job) -> bytes:
    """The ONNX file of a succeeded job's model (409 for any other job)."""
    data = succeeded_weights(session, job)
    return to_onnx(artifacts.unpack(data), {**artifacts.metadata_of(data), **encoding_metadata(session, job)})


def encoding_metadata(session: Session, job: Job) -> dict[str, str]:
    """The job's id, and how its dataset's columns became the features (``encoding``: JSON of
    :class:`app.jobs.schemas.InputEncoding`, absent once the dataset is deleted)."""
    encoding = jobs_service.input_encoding(session, job)
    out = {"job_id": job.id}
    if encoding is not None:
        out["encoding"] = encoding.model_dump_json()
    return out


def to_onnx(model: FittedModel, metadata: Mapping[str, str] | None = None) -> bytes:
    """The serialised ONNX model of ``model`` (see the module docstring for its inputs and outputs)."""
    try:
        import onnx
        from onnx import TensorProto, helper, numpy_helper
    except ImportError as exc:  # pragma: no cover - the onnx extra is in dev, so tests have it
        raise OnnxUnavailable("ONNX export needs the onnx package: pip install 'sal-service[onnx]'") from exc

    p = len(model.feature_names)
    nodes: list[Any] = []
    inits: list[Any] = []

    def const(name: str, value: np.ndarray[Any, Any]) -> str:
        inits.append(numpy_helper.from_array(np.asarray(value), name=name))
        return name

    def node(op: str, inputs: list[str], output: str, **attrs: Any) -> str:
        nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    centred = node("Sub", [INPUT, const("mean", model.standardizer.mean.astype(np.float64))], "centred")
    z = node("Div", [centred, const("scale", model.standardizer.scale.astype(np.float64))], "z")
    out = _network(model.module(), z, node, const)
    outputs = _heads(model.task, out, node, const)

    graph = helper.make_graph(
        nodes,
        "sal_model",
        [helper.make_tensor_value_info(INPUT, TensorProto.DOUBLE, ["N", p])],
        [helper.make_tensor_value_info(name, TensorProto.DOUBLE, ["N"]) for name in outputs],
        initializer=inits,
    )
    onnx_model = helper.make_model(
        graph,
        producer_name=PRODUCER,
        opset_imports=[helper.make_opsetid("", OPSET)],
        doc_string="raw covariates X (columns in feature_names order) -> " + ", ".join(outputs),
    )
    onnx_model.ir_version = 8  # what opset 17 needs; onnxruntime >= 1.14 loads it
    props = {
        "feature_names": json.dumps(list(model.feature_names)),
        "task": model.task,
        "model": json.dumps(model.model_spec.to_dict()),
        **(
            {"covariate_weights": json.dumps([float(v) for v in model.covariate_weights])}
            if model.covariate_weights is not None
            else {}
        ),
        **dict(metadata or {}),
    }
    helper.set_model_props(onnx_model, props)
    onnx.checker.check_model(onnx_model, full_check=True)
    data: bytes = onnx_model.SerializeToString()
    return data


def _network(module: nn.Module, z: str, node: Any, const: Any) -> str:
    """The model's layers on standardised z: (N, p) -> (N,)."""
    if isinstance(module, LinearModel):
        weight = module.weight.detach().double().numpy()
        product = node("MatMul", [z, const("theta", weight)], "theta_z")
        return str(node("Add", [product, const("bias", module.bias.detach().double().numpy())], "output"))
    h = z
    linear = 0
    for layer in module.modules():
        if isinstance(layer, nn.Linear):
            w = const(f"W{linear}", layer.weight.detach().double().numpy())
            b = const(f"b{linear}", layer.bias.detach().double().numpy())
            h = node("Gemm", [h, w, b], f"linear{linear}", transB=1)
            linear += 1
        elif isinstance(layer, nn.GELU):
            h = _gelu(h, f"gelu{linear}", node, const)
        elif type(layer) in ACTIVATIONS:
            h = node(ACTIVATIONS[type(layer)], [h], f"act{linear}")
        elif isinstance(layer, nn.Sequential) or layer is module:
            continue
        else:
            raise ValueError(f"no ONNX export for layer {type(layer).__name__}")
    return str(node("Squeeze", [h, const("last_axis", np.array([1], dtype=np.int64))], "output"))


ERF_DEGREE = 40
ERF_RANGE = 6.0
"""erf on [0, 6] as a Chebyshev series of degree 40 (max error 1.7e-14 against math.erf on a grid of
200,001 points); beyond 6, |erf| = 1 to within 2e-17. onnxruntime has no float64 Erf kernel (nor
Gelu, which it lowers to Erf), and a float32 Erf would cost ~1e-7, so erf is built of float64 ops."""


def erf_coefficients() -> np.ndarray[Any, np.dtype[np.float64]]:
    """Chebyshev coefficients of erf(3u + 3) for u in [-1, 1] (ERF_RANGE = 6)."""
    from numpy.polynomial import chebyshev

    half = ERF_RANGE / 2
    erf = np.vectorize(math.erf)
    coef: np.ndarray[Any, np.dtype[np.float64]] = chebyshev.chebinterpolate(
        lambda u: erf(half * u + half), ERF_DEGREE
    )
    return coef


def _erf(x: str, name: str, node: Any, const: Any) -> str:
    """erf(x) = sign(x)·S(u), u = (min(|x|, 6) - 3) / 3, S the Chebyshev series (Clenshaw's sum)."""
    half = ERF_RANGE / 2
    capped = node(
        "Min", [node("Abs", [x], f"{name}_abs"), const(f"{name}_cap", np.array(ERF_RANGE))], f"{name}_a"
    )
    centred = node("Sub", [capped, const(f"{name}_mid", np.array(half))], f"{name}_c")
    u = node("Div", [centred, const(f"{name}_half", np.array(half))], f"{name}_u")
    two_u = node("Add", [u, u], f"{name}_2u")
    coef = erf_coefficients()
    # b_k = c_k + 2u·b_{k+1} - b_{k+2}, from k = n down to 1; S = c_0 + u·b_1 - b_2.
    b1, b2 = const(f"{name}_zero", np.array(0.0)), const(f"{name}_zero2", np.array(0.0))
    for k in range(len(coef) - 1, 0, -1):
        step = node("Mul", [two_u, b1], f"{name}_m{k}")
        step = node("Sub", [step, b2], f"{name}_d{k}")
        b1, b2 = node("Add", [step, const(f"{name}_c{k}", np.array(coef[k]))], f"{name}_b{k}"), b1
    series = node("Sub", [node("Mul", [u, b1], f"{name}_ub"), b2], f"{name}_s0")
    series = node("Add", [series, const(f"{name}_c0", np.array(coef[0]))], f"{name}_series")
    return str(node("Mul", [node("Sign", [x], f"{name}_sign"), series], f"{name}_erf"))


def _gelu(h: str, name: str, node: Any, const: Any) -> str:
    """torch's exact GELU, 0.5·x·(1 + erf(x/√2))."""
    scaled = node("Mul", [h, const(f"{name}_inv_sqrt2", np.array(1.0 / math.sqrt(2.0)))], f"{name}_s")
    erf = _erf(scaled, f"{name}_e", node, const)
    one_plus = node("Add", [erf, const(f"{name}_one", np.array(1.0))], f"{name}_1p")
    half_x = node("Mul", [h, const(f"{name}_half", np.array(0.5))], f"{name}_hx")
    return str(node("Mul", [half_x, one_plus], name))


def _heads(task: str, out: str, node: Any, const: Any) -> list[str]:
    if task != "classification":
        node("Identity", [out], "prediction")
        return ["prediction"]
    node("Identity", [out], "logit")
    node("Sigmoid", [out], "probability")
    positive = node("GreaterOrEqual", [out, const("zero", np.array(0.0))], "positive")
    node("Cast", [positive], "label", to=11)  # 11 = TensorProto.DOUBLE
    return ["label", "probability", "logit"]


__all__ = ["INPUT", "OnnxUnavailable", "job_onnx", "succeeded_weights", "to_onnx"]
