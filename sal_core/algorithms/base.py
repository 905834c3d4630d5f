"""The one interface every algorithm implements, and what a fit returns.

An algorithm is a subclass of :class:`Algorithm` with a ``name``, a frozen ``Params`` dataclass and
a ``_fit(problem, reporter) -> Solution`` method that works on standardised tensors. ``fit`` does
everything shared: validation, standardisation, seeding, device placement and packaging the result.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import torch
from numpy.typing import NDArray
from torch import nn

from sal_core.cross_fit import row_keys
from sal_core.data import Environment, FloatArray, Standardizer, default_feature_names, validate_environments
from sal_core.exceptions import InvalidParameterError
from sal_core.history import Round
from sal_core.losses import LossName, Task, pointwise_loss, resolve_loss
from sal_core.models import ModelSpec
from sal_core.params import Params

P = TypeVar("P", bound=Params)

RoundMetrics = Mapping[str, float | Sequence[float]]
"""One outer round's numbers: ``{"risk": r}``, and for SAL ``"w"``, the covariate weights (p,)."""
ProgressCallback = Callable[[int, int, RoundMetrics], bool | None]
"""Called as ``progress(step, total, metrics)`` after each outer round; returning True stops the fit."""


def resolve_device(device: str) -> torch.device:
    """``"auto"`` picks CUDA when available; ``"cuda"`` without a GPU is an error, not a fallback."""
    if device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if device == "cpu":
        return torch.device("cpu")
    if device.startswith("cuda"):
        if not torch.cuda.is_available():
            raise InvalidParameterError("device 'cuda' requested but no GPU is available", field="device")
        return torch.device(device)
    raise InvalidParameterError(f"device must be 'auto', 'cpu' or 'cuda', got {device!r}", field="device")


@dataclass
class EnvTensors:
    name: str
    Z: torch.Tensor  # (n_e, p), standardised
    y: torch.Tensor  # (n_e,)


@dataclass
class Problem:
    """Standardised training data on the fit's device, with the task's loss and model family."""

    envs: list[EnvTensors]
    Z: torch.Tensor  # (n, p) pooled
    y: torch.Tensor  # (n,)
    env_index: torch.Tensor  # (n,) int64, row -> environment
    task: Task
    loss_name: LossName
    model_spec: ModelSpec
    generator: torch.Generator
    seed: int
    row_keys: NDArray[np.uint64] | None = None  # (n,) content hash per row (cross_fit.row_keys)

    @property
    def n_features(self) -> int:
        return int(self.Z.shape[1])

    @property
    def n_envs(self) -> int:
        return len(self.envs)

    @property
    def env_counts(self) -> torch.Tensor:
        return torch.bincount(self.env_index, minlength=self.n_envs).to(self.Z.dtype)

    def new_model(self) -> nn.Module:
        if not self.model_spec.is_linear:  # linear models start at zero; only MLPs draw weights
            torch.manual_seed(self.seed)
        return self.model_spec.build(self.n_features).to(device=self.Z.device, dtype=self.Z.dtype)

    def loss(self, output: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        """Per-row loss (n,)."""
        return pointwise_loss(self.loss_name, output, y)

    def env_means(self, per_row: torch.Tensor) -> torch.Tensor:
        """Average a per-row quantity within each environment: (n,) -> (E,)."""
        sums = torch.zeros(self.n_envs, dtype=per_row.dtype, device=per_row.device)
        sums = sums.index_add(0, self.env_index, per_row)
        return sums / self.env_counts

    def env_losses(self, model: nn.Module) -> torch.Tensor:
        """Training loss per environment (E,)."""
        return self.env_means(self.loss(model(self.Z), self.y))


@dataclass(frozen=True)
class Certificate:
    """Theorem 1: the worst case found lies at transport cost ``rho_hat`` from the training data,
    and ``worst_case_risk`` = E[s_λ] + λ·ρ̂ bounds the risk over that whole Wasserstein ball."""

    rho_hat: float
    worst_case_risk: float
    lambda_: float


@dataclass
class Solution:
    """What ``_fit`` returns: the trained module (standardised inputs) and what was learned."""

    model: nn.Module
    covariate_weights: torch.Tensor | None = None
    history: Sequence[Round] = field(default_factory=list)  # one per outer round
    certificate: Certificate | None = None
    stopped: bool = False
    selection: dict[str, Any] | None = None  # how a hyper-parameter set to "auto" was chosen


class Reporter:
    """Forwards progress to the user's callback and remembers whether a stop was asked for."""

    def __init__(self, callback: ProgressCallback | None, total: int) -> None:
        self._callback = callback
        self.total = total
        self.stop_requested = False

    def __call__(self, step: int, metrics: RoundMetrics | None = None) -> bool:
        if self._callback is not None and self._callback(step, self.total, dict(metrics or {})):
            self.stop_requested = True
        return self.stop_requested


@dataclass(frozen=True)
class FittedModel:
    """A trained model with its standardisation: everything needed to predict on raw covariates."""

    task: Task
    model_spec: ModelSpec
    feature_names: tuple[str, ...]
    standardizer: Standardizer
    state: dict[str, torch.Tensor]
    covariate_weights: FloatArray | None = None

    def module(self) -> nn.Module:
        net = self.model_spec.build(len(self.feature_names)).to(torch.float64)
        net.load_state_dict({k: v.to(torch.float64) for k, v in self.state.items()})
        return net.eval()

    def decision_function(self, X: FloatArray) -> FloatArray:
        """Prediction (regression) or logit (classification) per row: (n, p) -> (n,)."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2 or X.shape[1] != len(self.feature_names):
            raise ValueError(f"X must have shape (n, {len(self.feature_names)}), got {X.shape}")
        z = torch.from_numpy(self.standardizer.transform(X))
        with torch.no_grad():
            out: FloatArray = self.module()(z).numpy()
        return out

    def predict_proba(self, X: FloatArray) -> FloatArray:
        """P(y = 1) per row (classification only)."""
        if self.task != "classification":
            raise ValueError("predict_proba applies to classification models only")
        return 1.0 / (1.0 + np.exp(-self.decision_function(X)))

    def predict(self, X: FloatArray) -> FloatArray:
        """Prediction (regression) or label in {0, 1} (classification) per row."""
        out = self.decision_function(X)
        if self.task == "classification":
            return (out >= 0.0).astype(np.float64)
        return out

    def linear_coefficients(self) -> tuple[FloatArray, float] | None:
        """(θ, b) on standardised covariates for a linear model, else None."""
        if not self.model_spec.is_linear:
            return None
        return self.state["weight"].double().numpy().copy(), float(self.state["bias"])

    def to_tensors(self) -> tuple[dict[str, torch.Tensor], dict[str, str]]:
        """Flat tensors and string metadata, the layout of the safetensors download."""
        import json

        tensors = {f"model.{k}": v.contiguous() for k, v in self.state.items()}
        tensors["standardizer.mean"] = torch.from_numpy(self.standardizer.mean.copy())
        tensors["standardizer.scale"] = torch.from_numpy(self.standardizer.scale.copy())
        if self.covariate_weights is not None:
            tensors["covariate_weights"] = torch.from_numpy(
                np.asarray(self.covariate_weights, dtype=np.float64)
            )
        metadata = {
            "task": self.task,
            "model": json.dumps(self.model_spec.to_dict()),
            "feature_names": json.dumps(list(self.feature_names)),
        }
        return tensors, metadata

    @classmethod
    def from_tensors(cls, tensors: Mapping[str, torch.Tensor], metadata: Mapping[str, str]) -> FittedModel:
        import json

        state = {k[len("model.") :]: v for k, v in tensors.items() if k.startswith("model.")}
        w = tensors.get("covariate_weights")
        return cls(
            task=metadata["task"],  # type: ignore[arg-type]
            model_spec=ModelSpec.from_mapping(json.loads(metadata["model"])),
            feature_names=tuple(json.loads(metadata["feature_names"])),
            standardizer=Standardizer(
                mean=tensors["standardizer.mean"].double().numpy(),
                scale=tensors["standardizer.scale"].double().numpy(),
            ),
            state=dict(state),
            covariate_weights=None if w is None else w.double().numpy(),
        )


@dataclass(frozen=True)
class FitResult:
    """Everything a fit learned. Coefficients are None for non-linear models."""

    algorithm: str
    params: Params
    model: FittedModel
    coefficients: FloatArray | None  # (p,) on standardised covariates
    intercept: float | None
    coefficients_original: FloatArray | None  # (p,) in the covariates' own units
    intercept_original: float | None
    covariate_weights: FloatArray | None  # (p,) w ≥ 1 with min 1 (SAL), ones (WDRL), else None
    history: Sequence[Round]  # as the algorithm recorded it
    certificate: Certificate | None
    device: str
    duration_s: float
    stopped: bool
    rounds: list[Round] = field(default_factory=list)  # ``history`` typed, one Round per outer round
    selection: dict[str, Any] | None = None  # candidates and criterion of an "auto" hyper-parameter

    @property
    def feature_names(self) -> tuple[str, ...]:
        return self.model.feature_names

    def predict(self, X: FloatArray) -> FloatArray:
        return self.model.predict(X)


@dataclass(frozen=True)
class AlgorithmConfig:
    """An algorithm's checked configuration (see :meth:`Algorithm.check_params`)."""

    params: Params
    task: Task
    loss_name: LossName
    model_spec: ModelSpec
    seed: int


class Algorithm(ABC, Generic[P]):
    """Base of every learner. Subclasses set ``name``, ``params_type`` and implement ``_fit``."""

    name: ClassVar[str]
    params_type: ClassVar[type[Params]]
    min_environments: ClassVar[int] = 1
    linear_only: ClassVar[bool] = False
    summary: ClassVar[str] = ""

    def __init__(
        self,
        params: P | Mapping[str, Any] | None = None,
        *,
        task: Task = "regression",
        loss: LossName | None = None,
        model: ModelSpec | Mapping[str, Any] | None = None,
        seed: int = 0,
        device: str = "cpu",
        dtype: torch.dtype = torch.float64,
    ) -> None:
        config = self.check_params(params, task=task, loss=loss, model=model, seed=seed)
        self.params: P = config.params  # type: ignore[assignment]
        self.task = config.task
        self.loss_name = config.loss_name
        self.model_spec = config.model_spec
        self.seed = config.seed
        self.device = resolve_device(device)
        if dtype not in (torch.float32, torch.float64):
            raise InvalidParameterError("dtype must be torch.float32 or torch.float64", field="dtype")
        self.dtype = dtype

    @classmethod
    def check_params(
        cls,
        params: Params | Mapping[str, Any] | None = None,
        *,
        task: Task = "regression",
        loss: LossName | None = None,
        model: ModelSpec | Mapping[str, Any] | None = None,
        seed: int = 0,
    ) -> AlgorithmConfig:
        """Validate what a fit is configured with (not the device: that is the machine's), without
        building an algorithm; parameters come back with their defaults filled in. Raises a
        ``SalError`` naming the field."""
        resolved = params if isinstance(params, cls.params_type) else cls.params_type.from_mapping(params)  # type: ignore[arg-type]
        loss_name = resolve_loss(task, loss)
        model_spec = model if isinstance(model, ModelSpec) else ModelSpec.from_mapping(model)
        if cls.linear_only and not model_spec.is_linear:
            raise InvalidParameterError(f"{cls.name} supports linear models only", field="model.kind")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise InvalidParameterError("seed must be an integer", field="seed")
        return AlgorithmConfig(resolved, task, loss_name, model_spec, seed)

    def fit(
        self,
        environments: Sequence[Environment],
        *,
        feature_names: Sequence[str] | None = None,
        progress: ProgressCallback | None = None,
    ) -> FitResult:
        """Learn from the training environments. Each ``Environment`` holds raw (unstandardised) X."""
        p = validate_environments(environments, min_environments=self.min_environments, task=self.task)
        names = tuple(feature_names) if feature_names is not None else tuple(default_feature_names(p))
        if len(names) != p:
            raise InvalidParameterError(
                f"{len(names)} feature names for {p} covariates", field="feature_names"
            )
        started = time.perf_counter()
        raw = [self._tensor(e.X) for e in environments]  # one copy to the device; the rest happens there
        standardizer = Standardizer.fit_tensors(raw)
        problem = self._problem(environments, standardizer, raw)
        solution = self._fit(problem, Reporter(progress, self.total_steps()))
        rounds = list(solution.history)
        return self._package(solution, standardizer, names, time.perf_counter() - started, rounds)

    def total_steps(self) -> int:
        """How many progress steps a fit reports (outer rounds)."""
        return 1

    @abstractmethod
    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        """Train on standardised data and return the module and what was learned."""

    def _tensor(self, a: FloatArray) -> torch.Tensor:
        return torch.as_tensor(a, dtype=self.dtype, device=self.device)

    def _problem(
        self,
        environments: Sequence[Environment],
        standardizer: Standardizer,
        raw: Sequence[torch.Tensor] | None = None,
    ) -> Problem:
        """The standardised problem on the fit's device. ``raw`` (the environments' X already on the
        device, as ``fit`` copies them) is standardised there, not in numpy on the host."""
        xs = raw if raw is not None else [self._tensor(e.X) for e in environments]
        mean, scale = self._tensor(standardizer.mean), self._tensor(standardizer.scale)
        envs = [
            EnvTensors(e.name, (x - mean) / scale, self._tensor(e.y))
            for e, x in zip(environments, xs, strict=True)
        ]
        index = torch.cat(
            [
                torch.full((e.y.shape[0],), i, dtype=torch.int64, device=self.device)
                for i, e in enumerate(envs)
            ]
        )
        generator = torch.Generator(device=self.device)
        generator.manual_seed(self.seed)
        return Problem(
            envs=envs,
            Z=torch.cat([e.Z for e in envs]),
            y=torch.cat([e.y for e in envs]),
            env_index=index,
            task=self.task,
            loss_name=self.loss_name,
            model_spec=self.model_spec,
            generator=generator,
            seed=self.seed,
            row_keys=np.concatenate([row_keys(e.X, e.y) for e in environments]),
        )

    def _package(
        self,
        solution: Solution,
        standardizer: Standardizer,
        names: tuple[str, ...],
        duration: float,
        rounds: list[Round],
    ) -> FitResult:
        state = {
            k: v.detach().to("cpu", torch.float64).clone() for k, v in solution.model.state_dict().items()
        }
        w = (
            None
            if solution.covariate_weights is None
            else solution.covariate_weights.detach().cpu().double().numpy()
        )
        fitted = FittedModel(self.task, self.model_spec, names, standardizer, state, w)
        coef_b = fitted.linear_coefficients()
        coef_orig: tuple[FloatArray | None, float | None] = (None, None)
        if coef_b is not None:
            coef_orig = standardizer.coefficients_to_original(*coef_b)
        return FitResult(
            algorithm=self.name,
            params=self.params,
            model=fitted,
            coefficients=None if coef_b is None else coef_b[0],
            intercept=None if coef_b is None else coef_b[1],
            coefficients_original=coef_orig[0],
            intercept_original=coef_orig[1],
            covariate_weights=w,
            history=solution.history,
            certificate=solution.certificate,
            device=str(self.device),
            duration_s=duration,
            stopped=solution.stopped,
            rounds=rounds,
            selection=solution.selection,
        )
