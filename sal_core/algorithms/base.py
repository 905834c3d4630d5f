"""The one interface every algorithm implements, and what a fit returns.

An algorithm is a subclass of :class:`Algorithm` with a ``name``, a frozen ``Params`` dataclass and
a ``_fit(problem, reporter) -> Solution`` method that works on standardised tensors. ``fit`` does
everything shared: validation, standardisation, seeding, device placement and packaging the result.
"""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Generic, TypeVar

import numpy as np
import torch

from sal_core.cross_fit import KeyScale, row_keys
from sal_core.data import (
    Environment,
    FloatArray,
    Standardizer,
    default_feature_names,
    in_canonical_order,
    validate_environments,
)
from sal_core.exceptions import InvalidParameterError
from sal_core.fitted import FittedModel
from sal_core.history import Round
from sal_core.lambda_selection import FitSelection
from sal_core.losses import LossName, Task, resolve_loss
from sal_core.models import ModelSpec
from sal_core.params import Params
from sal_core.problem import (
    Certificate,
    EnvTensors,
    Problem,
    ProgressCallback,
    Reporter,
    RoundMetrics,
    Solution,
)

__all__ = [
    "Algorithm",
    "AlgorithmConfig",
    "Certificate",
    "EnvTensors",
    "FitResult",
    "FittedModel",
    "Problem",
    "ProgressCallback",
    "Reporter",
    "RoundMetrics",
    "Solution",
    "resolve_device",
]  # Problem, Solution, Reporter and Certificate live in sal_core.problem, FittedModel in sal_core.fitted

P = TypeVar("P", bound=Params)


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
    history: list[Round]  # one per outer round, as the algorithm recorded it
    certificate: Certificate | None
    device: str
    duration_s: float
    stopped: bool
    selection: FitSelection | None = None  # candidates and criterion of an "auto" hyper-parameter

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
    _resolved_device: torch.device | None = None  # set by ``fit``; see ``device_``

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
        """Store the configuration as given (scikit-learn's contract): nothing is checked or
        resolved here. ``fit`` checks it first (``_validate_params``); ``check_params`` checks one
        without building an algorithm (the API does, before it queues a job)."""
        self.given_params = params  # a Params, a mapping of its fields, or None (every default)
        self.task = task
        self.loss = loss
        self.model = model
        self.seed = seed
        self.device = device  # as asked ("auto", "cpu", "cuda", "cuda:1"); ``fit`` resolves it once
        self.dtype = dtype
        self._config: AlgorithmConfig | None = None  # set by ``_validate_params``

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
        """Learn from the training environments. Each ``Environment`` holds raw (unstandardised) X.
        Checks the configuration first: a bad one raises ``InvalidParameterError`` naming the field.
        The fit reads the environments by name and each one's rows by content
        (:func:`sal_core.data.in_canonical_order`), so the order they are listed in changes nothing,
        to the bit."""
        self._validate_params()
        p = validate_environments(environments, min_environments=self.min_environments, task=self.task)
        names = tuple(feature_names) if feature_names is not None else tuple(default_feature_names(p))
        if len(names) != p:
            raise InvalidParameterError(
                f"{len(names)} feature names for {p} covariates", field="feature_names"
            )
        started = time.perf_counter()
        environments = in_canonical_order(environments, names)
        self._resolved_device = resolve_device(self.device)
        raw = [self._tensor(e.X) for e in environments]  # one copy to the device; the rest happens there
        standardizer = Standardizer.fit_tensors(raw)
        problem = self._problem(environments, standardizer, raw, names)
        del environments, raw  # the rows in their new order: the problem holds them standardised
        solution = self._fit(problem, Reporter(progress, self.total_steps()))
        return self._package(solution, standardizer, names, time.perf_counter() - started)

    def _validate_params(self) -> AlgorithmConfig:
        """Check what ``__init__`` stored (scikit-learn's ``_validate_params``, run at the start of
        ``fit``): parameters with their defaults filled in, the loss and the model resolved."""
        if self.dtype not in (torch.float32, torch.float64):
            raise InvalidParameterError("dtype must be torch.float32 or torch.float64", field="dtype")
        self._config = self.check_params(
            self.given_params, task=self.task, loss=self.loss, model=self.model, seed=self.seed
        )
        return self._config

    @property
    def config_(self) -> AlgorithmConfig:
        """The checked configuration: by ``fit``, or at first use where an algorithm's parts run
        without it (SAL's linear w-seeder inside an MLP fit)."""
        return self._config if self._config is not None else self._validate_params()

    @property
    def params(self) -> P:
        """The parameters, defaults filled in (``given_params`` checked)."""
        return self.config_.params  # type: ignore[return-value]

    @property
    def loss_name(self) -> LossName:
        return self.config_.loss_name

    @property
    def model_spec(self) -> ModelSpec:
        return self.config_.model_spec

    @property
    def device_(self) -> torch.device:
        """``device`` resolved for this machine: by ``fit``, or at first use where an algorithm's
        parts run without it (SAL's linear w-seeder inside an MLP fit, a problem built directly)."""
        if self._resolved_device is None:
            self._resolved_device = resolve_device(self.device)
        return self._resolved_device

    def total_steps(self) -> int:
        """How many progress steps a fit reports (outer rounds)."""
        return 1

    @abstractmethod
    def _fit(self, problem: Problem, reporter: Reporter) -> Solution:
        """Train on standardised data and return the module and what was learned."""

    def _tensor(self, a: FloatArray) -> torch.Tensor:
        return torch.as_tensor(a, dtype=self.dtype, device=self.device_)

    def _problem(
        self,
        environments: Sequence[Environment],
        standardizer: Standardizer,
        raw: Sequence[torch.Tensor] | None = None,
        names: Sequence[str] | None = None,
    ) -> Problem:
        """The standardised problem on the fit's device. ``raw`` (the environments' X already on the
        device, as ``fit`` copies them) is standardised there, not in numpy on the host. ``names``
        (the covariates') salt each row's content key, so the folds follow the names, not the order;
        its values are read on the pooled scale (``KeyScale``), so the folds do not follow the units."""
        xs = raw if raw is not None else [self._tensor(e.X) for e in environments]
        mean, scale = self._tensor(standardizer.mean), self._tensor(standardizer.scale)
        envs = [
            EnvTensors(e.name, (x - mean) / scale, self._tensor(e.y))
            for e, x in zip(environments, xs, strict=True)
        ]
        index = torch.cat(
            [
                torch.full((e.y.shape[0],), i, dtype=torch.int64, device=self.device_)
                for i, e in enumerate(envs)
            ]
        )
        generator = torch.Generator(device=self.device_)
        generator.manual_seed(self.seed)
        keys = KeyScale.of(standardizer.mean, standardizer.scale, [e.y for e in environments])
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
            row_keys=np.concatenate([row_keys(e.X, e.y, names, keys) for e in environments]),
        )

    def _package(
        self,
        solution: Solution,
        standardizer: Standardizer,
        names: tuple[str, ...],
        duration: float,
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
            history=list(solution.history),
            certificate=solution.certificate,
            device=str(self.device_),
            duration_s=duration,
            stopped=solution.stopped,
            selection=solution.selection,
        )
