"""MLP fits of a stored dataset from minibatches streamed from its row groups (issue 19).

MLPs (regression; :func:`fit_network`) are not moment fits: their Adam steps take minibatches
streamed from the row groups (:class:`sal_core.minibatches.ShuffledChunks`, ``CHUNKS_AT_ONCE``
row groups held at a time, drawn from the job's seed), in the job's worker; the stats and metrics
passes fan out as the linear fits' do (:mod:`app.datasets.outofcore`, which also decides which
jobs run so: ``outofcore.supports``). What runs so:

* ``erm``: ERM's Adam steps (its ``steps`` and ``lr``) on the plain loss, each on one minibatch
  (in memory: full batch);
* ``sal`` under the linear path's w (``w_source="auto"``/``"linear"``): w from the linear fit
  SAL's ``w_seeder`` makes (:func:`outofcore.fit_linear` at ``lambda_="auto"``, equal to the in-memory
  seeder's to ~1e-15), then the seeded path's network fit at that w (``sal_core.paths.deep``'s
  schedule, ``sal_core.deep_sal`` with ``batches``): at a fixed ``lambda_`` one fit; at
  ``lambda_="auto"`` the in-memory held-out choice (:func:`_seeded_auto`: fold 0 held out, a
  streamed network per candidate, their held-out losses as :class:`LossStats` sums, the refit).

Not bit for bit the in-memory fit (other minibatches; a streamed row's adversary starts from 0 at
each visit): on tests/app/test_outofcore_network.py's table the streamed fit's test RMSE is
0.93-1.05 of the in-memory SAL's and 1.01-1.08 of the in-memory ERM's (seeds 0 and 1). A cancel is
seen at the network's progress ticks (the fit keeps its partial network, as in memory) and before
each row group the stream reads (:func:`train_reader`'s ``stop``: :class:`fanout.PassStopped`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import torch

from app.datasets import chunks, fanout
from app.datasets.outofcore import (
    Array,
    ChunkedData,
    LinearFit,
    PassRunner,
    _env_metrics,
    _rows_of,
    _seeder_params,
    _standardiser,
    fit_linear,
    key_scale,
)
from app.storage import ObjectStore
from sal_core import cross_fit, deep_sal, loss_stats
from sal_core import exact_selection as es
from sal_core import lambda_selection as ls
from sal_core import minibatches as mb
from sal_core.algorithms.erm import ERM
from sal_core.algorithms.sal import SAL, SALParams
from sal_core.algorithms.wdrl import REFIT_SLACK
from sal_core.cross_fit import FoldSums
from sal_core.data import Standardizer
from sal_core.fitted import FittedModel
from sal_core.history import Round
from sal_core.homogeneity import erm_first_here
from sal_core.loss_stats import LossStats
from sal_core.models import ModelSpec
from sal_core.params import AUTO
from sal_core.paths.common import protection
from sal_core.paths.deep import SEEDED_OPTIONS, SEEDED_TICKS
from sal_core.paths.gradient import ERM_STEPS
from sal_core.problem import EnvTensors, Problem, Reporter, RoundMetrics, Solution

__all__ = [
    "CHUNKS_AT_ONCE",
    "NetworkFit",
    "fit_network",
    "group_reader",
    "train_reader",
]


CHUNKS_AT_ONCE = 4
"""Row groups a streamed network fit holds at once (its shuffle buffer, :mod:`sal_core.minibatches`):
with the store's ~20,000-row groups, 80,000 rows, ten 8,192-row minibatches."""


@dataclass
class NetworkFit:
    """An MLP fitted from minibatches streamed from the chunks: the job's result's parts."""

    model: FittedModel
    w: Array | None
    rounds: list[dict[str, Any]]
    certificate: tuple[float, float] | None
    metrics: dict[str, dict[str, float]]
    stopped: bool = False
    selection: ls.FitSelection | None = None
    passes: dict[str, float] = field(default_factory=dict)
    peak_rows: int = 0  # the most streamed rows held at once (K row groups and a leftover)


def group_reader(
    store: ObjectStore, key: str, data: ChunkedData, target: str
) -> Callable[[int], mb.ChunkRows]:
    """Row group i of the stored table, alone, by byte ranges, as :func:`chunks.iter_chunks` decodes
    it; one handle for every read (a new handle per read cost a fetch each: on the local store
    1.2 ms against 0.65 ms a 300-row group, on S3 a round trip)."""
    handle = chunks.open_table(store, key)
    known = pa.array(list(data.environments), pa.string())

    def read(i: int) -> mb.ChunkRows:
        return chunks.decode_group(handle, i, known=known, feature_names=data.feature_names, target=target)

    return read


def train_reader(
    read_group: Callable[[int], mb.ChunkRows], data: ChunkedData, stop: Callable[[], bool] = lambda: False
) -> mb.ChunkReader:
    """Row group i's training rows (environments renumbered in ``data.train``'s order); ``stop``
    is asked before each read: True raises :class:`fanout.PassStopped` (a cancel while streaming)."""
    index = {name: i for i, name in enumerate(data.environments)}
    to_train = np.full(len(data.environments), -1, dtype=np.int64)
    for j, name in enumerate(data.train):
        to_train[index[name]] = j

    def read(i: int) -> mb.ChunkRows:
        if stop():
            raise fanout.PassStopped("the network fit was stopped while streaming its minibatches")
        chunk = read_group(i)
        env = to_train[chunk.env]
        keep = env >= 0
        return mb.ChunkRows(env[keep], chunk.X[keep], chunk.y[keep])

    return read


def fit_network(
    data: ChunkedData,
    algorithm: str,
    params: dict[str, Any],
    model: dict[str, Any],
    run_pass: PassRunner,
    read: mb.ChunkReader,
    n_groups: int,
    *,
    seed: int = 0,
    progress: Callable[[int, dict[str, Any]], bool] | None = None,
    chunks_at_once: int = CHUNKS_AT_ONCE,
    batch_rows: int = deep_sal.DeepSALOptions().batch_rows,
) -> NetworkFit:
    """ERM or SAL (under the linear path's w) for an MLP, its θ-steps on minibatches
    streamed from the row groups (``read``: :func:`train_reader`), as :mod:`sal_core.deep_sal`
    fits them in memory from 10⁵ rows (ERM's, there full-batch, with the same Adam steps and rate):

    1. the stats pass: the standardiser and y's scale, as in memory;
    2. SAL only: w, by the linear fit SAL's ``w_seeder`` makes (``lambda_="auto"`` on the exact
       path), chunk by chunk (:func:`fit_linear`, its passes fanned out);
    3. the evaluation sample (at most ``DeepSALOptions.eval_rows`` rows, one pass,
       :func:`sal_core.minibatches.sample_rows`): the round's environment losses, the certificate;
    4. the θ-steps, each on the stream's next minibatch (:class:`sal_core.minibatches.ShuffledChunks`,
       ``chunks_at_once`` row groups held at a time, ``batch_rows`` rows a step, drawn from ``seed``);
       SAL at ``lambda_="auto"``: a network per candidate on the rows outside fold 0, their scores
       on fold 0, the refit (:func:`_seeded_auto`);
    5. the metrics pass (fanned out) with the network's weights.
    """
    kept: dict[str, fanout.Arrays] = {}

    def cached(what: fanout.Pass) -> fanout.Arrays:  # the seeder's stats and fold sums serve the network
        if what.name not in ("stats", "sums"):
            return run_pass(what)
        if what.name not in kept:
            kept[what.name] = run_pass(what)
        return kept[what.name]

    import time

    started = time.perf_counter()
    index = {name: i for i, name in enumerate(data.environments)}
    train = [index[n] for n in data.train]
    stats = cached(fanout.Pass("stats", {}))
    standardizer, _, y_scale = _standardiser(stats, train)
    spec = ModelSpec.from_mapping(model)
    offset = 0
    w: torch.Tensor | None = None
    seeded: LinearFit | None = None
    if algorithm == "sal":
        seeder = SAL(_seeder_params(params), seed=seed)
        seeded = fit_linear(
            data, "sal", _seeder_params(params), cached, seed=seed, progress=progress, score=False
        )
        offset = seeder.total_steps()
        assert seeded.w is not None
        w = torch.as_tensor(seeded.w)
    peak = 0
    chose: ls.FitSelection | None = None  # lambda_="auto": the candidates, the choice, the refit
    if seeded is not None and seeded.stopped:  # cancelled while learning w: the network is untrained
        torch.manual_seed(seed)  # as Problem.new_model draws it; no row is read
        untrained = spec.build(len(data.feature_names)).double()
        solution = Solution(model=untrained, covariate_weights=w, stopped=True)
        rounds = seeded.rounds
    else:
        n_train = int(sum(float(stats["n"][e]) for e in train))
        problem = _sample_problem(data, standardizer, spec, read, n_groups, n_train, seed)
        streams: list[mb.ShuffledChunks] = []

        def stream(reader: mb.ChunkReader) -> mb.ShuffledChunks:
            streams.append(
                mb.ShuffledChunks(
                    reader,
                    n_groups,
                    mean=standardizer.mean,
                    scale=standardizer.scale,
                    batch_rows=batch_rows,
                    chunks_at_once=chunks_at_once,
                    seed=seed,
                )  # fmt: skip
            )
            return streams[-1]

        if algorithm == "sal" and params.get("lambda_", AUTO) == AUTO:
            seeder_sums = _rows_of(fanout.fold_sums_of(kept["sums"]), train)
            # the seeder's sums hold K columns per split of its repeated cross-fitting; the held-out
            # path holds out fold 0 of the first split, as ls.row_folds(problem, K) does in memory
            sums = seeder_sums.splits(seeder_sums.n_folds // SAL(params).params.folds)[0]
            held = _HeldOut(
                data, standardizer, key_scale(stats, train, standardizer), spec, read, n_groups, seed
            )
            solution, chose = _seeded_auto(
                SAL(params), sums, problem, y_scale, w, held, stream, progress, offset
            )
        else:
            reporter = _reporter(progress, offset, erm=algorithm == "erm")
            solution = _streamed_fit(algorithm, params, problem, y_scale, w, reporter, stream(read))
        rounds = [_round_of(r, erm=algorithm == "erm") for r in solution.history]
        peak = max(s.peak_rows for s in streams)
    fitted_w = (
        None if algorithm == "erm" or solution.covariate_weights is None else solution.covariate_weights
    )
    state = {k: v.detach().to("cpu", torch.float64).clone() for k, v in solution.model.state_dict().items()}
    w_out = None if fitted_w is None else fitted_w.detach().cpu().double().numpy()
    fitted = FittedModel("regression", spec, data.feature_names, standardizer, state, w_out)
    m = run_pass(
        fanout.Pass(
            "metrics",
            {"model": {"kind": spec.kind, "hidden": list(spec.hidden), "activation": spec.activation},
             "state": {k: v.tolist() for k, v in state.items()},
             "mean": standardizer.mean.tolist(), "scale": standardizer.scale.tolist()},
            stoppable=False,
        )
    )  # fmt: skip
    cert = None if algorithm == "erm" else solution.certificate  # ERM's has no adversary to certify
    selection = None
    if seeded is not None and w_out is not None:
        selection = dataclasses.replace(
            chose or ls.FitSelection(),
            covariate_weights=ls.SeededW(
                source="SAL's exact path on a linear model of the same rows, then held fixed",
                w=tuple(float(v) for v in w_out),
                selection=seeded.selection,
            ),
        )
    return NetworkFit(
        fitted, w_out, rounds, None if cert is None else (cert.rho_hat, cert.worst_case_risk),
        _env_metrics(m, data, index), solution.stopped, selection,
        {"total": time.perf_counter() - started}, peak,
    )  # fmt: skip


def _sample_problem(
    data: ChunkedData,
    standardizer: Standardizer,
    spec: ModelSpec,
    read: mb.ChunkReader,
    n_groups: int,
    n_train: int,
    seed: int,
) -> Problem:
    """The evaluation sample as a :class:`Problem` (standardised, CPU, float64, the job's seed)."""
    rows = mb.sample_rows(read, n_groups, n_train, deep_sal.DeepSALOptions().eval_rows, seed)
    Z = torch.as_tensor((rows.X - standardizer.mean) / standardizer.scale)
    y, env = torch.as_tensor(rows.y), torch.as_tensor(rows.env)
    envs = [EnvTensors(name, Z[env == j], y[env == j]) for j, name in enumerate(data.train)]
    generator = torch.Generator().manual_seed(seed)
    return Problem(envs, Z, y, env, "regression", "squared", spec, generator, seed)


def _streamed_fit(
    algorithm: str,
    params: dict[str, Any],
    problem: Problem,
    y_scale: float,
    w: torch.Tensor | None,
    reporter: Reporter,
    batches: mb.ShuffledChunks,
) -> Solution:
    """The network's θ-steps on the stream: ERM's Adam steps on the plain loss (its own steps and
    rate, y unscaled as in memory), or SAL's seeded fit at λ under w (``sal_core.paths.deep``'s
    schedule: 300 warm-up and 800 adversarial steps, ``SEEDED_TICKS`` progress ticks)."""
    if algorithm == "erm":
        erm = ERM(params).params
        options = dataclasses.replace(
            SEEDED_OPTIONS, theta_lr=erm.lr, warmup_steps=0, final_steps=erm.steps, minibatch_from=0
        )
        scale, ticks, lam, adversary, alpha, stability = 1.0, 1, 0.0, False, 0.0, "std"
    else:
        sal = SAL(params).params
        assert isinstance(sal, SALParams)
        return _seeded_fit(sal, problem, y_scale, w, reporter, batches, float(sal.lambda_), adversary=True)  # type: ignore[arg-type]
    return deep_sal.fit_deep_sal(
        problem, lambda_=lam, alpha=alpha, stability=stability, rounds=1, w_update=None, reporter=reporter,
        y_scale=scale, options=options, initial_w=w if adversary else None, adversary=adversary, ticks=ticks,
        batches=batches,
    )  # fmt: skip


def _seeded_fit(
    sal: SALParams,
    problem: Problem,
    y_scale: float,
    w: torch.Tensor | None,
    reporter: Reporter,
    batches: mb.ShuffledChunks,
    lam: float,
    *,
    adversary: bool,
) -> Solution:
    """``sal_core.paths.deep.fit_seeded`` on the stream: the network under w at λ (300 warm-up, 800
    adversarial steps), or, without the adversary, ERM's 2000 steps (w = 1) on the same schedule."""
    if adversary:
        options = dataclasses.replace(SEEDED_OPTIONS, theta_lr=sal.theta_lr)
    else:
        options = dataclasses.replace(
            SEEDED_OPTIONS, theta_lr=sal.theta_lr, warmup_steps=0, final_steps=ERM_STEPS
        )
    return deep_sal.fit_deep_sal(
        problem, lambda_=lam, alpha=sal.alpha, stability=sal.stability, rounds=1, w_update=None,
        reporter=reporter, y_scale=y_scale, options=options, initial_w=w if adversary else None,
        adversary=adversary, ticks=SEEDED_TICKS, batches=batches,
    )  # fmt: skip


class _HeldOut:
    """lambda_="auto"'s split of the training rows (fold 0 of ``folds`` held out, by each row's
    content and the seed, as ``lambda_selection.row_folds`` splits them in memory): readers of
    either part, the fit part's evaluation sample, and the held-out losses of networks."""

    def __init__(
        self,
        data: ChunkedData,
        standardizer: Standardizer,
        keys: cross_fit.KeyScale,
        spec: ModelSpec,
        read: mb.ChunkReader,
        n_groups: int,
        seed: int,
    ) -> None:
        self.data, self.standardizer, self.keys, self.spec = data, standardizer, keys, spec
        self.read, self.n_groups, self.seed = read, n_groups, seed

    def reader(self, k: int, *, held: bool) -> mb.ChunkReader:
        def read(i: int) -> mb.ChunkRows:
            rows = self.read(i)
            keys = cross_fit.row_keys(rows.X, rows.y, self.data.feature_names, self.keys)
            in_fold = cross_fit.folds_of(keys, self.seed, k) == 0
            keep = in_fold if held else ~in_fold
            return mb.ChunkRows(rows.env[keep], rows.X[keep], rows.y[keep])

        return read

    def sample(self, k: int, n_rows: int) -> Problem:
        return _sample_problem(
            self.data,
            self.standardizer,
            self.spec,
            self.reader(k, held=False),
            self.n_groups,
            n_rows,
            self.seed,
        )

    def losses(self, models: Sequence[torch.nn.Module], k: int) -> LossStats:
        """Each model's squared error on every held-out row, as sums per training environment (one
        pass; the in-memory ``ls.row_losses`` keeps them per row)."""
        read, total = self.reader(k, held=True), None
        n_envs = len(self.data.train)
        for i in range(self.n_groups):
            rows = read(i)
            Z = torch.as_tensor((rows.X - self.standardizer.mean) / self.standardizer.scale)
            y = torch.as_tensor(rows.y)
            with torch.no_grad():
                per_row = torch.stack([(m(Z).reshape(-1) - y) ** 2 for m in models], 1).numpy()
            one = LossStats.of_rows([per_row[rows.env == e] for e in range(n_envs)])
            total = one if total is None else total + one
        assert total is not None
        return total


def _seeded_auto(
    sal_: SAL,
    sums: FoldSums,
    problem: Problem,
    y_scale: float,
    w: torch.Tensor | None,
    held: _HeldOut,
    stream: Callable[[mb.ChunkReader], mb.ShuffledChunks],
    progress: Callable[[int, dict[str, Any]], bool] | None,
    offset: int,
) -> tuple[Solution, ls.FitSelection | None]:
    """SAL-MLP at ``lambda_="auto"`` as ``WDRL._fit_heldout_auto`` fits it in memory: every λ of the
    seeded grid (× the fit part's noise variance σ̂², from the fold sums) and the adversary switched off,
    each a network streamed from the rows outside fold 0, scored on fold 0 (worst environment's
    RMSE, paired standard errors: :mod:`sal_core.loss_stats`), the choice, then the refit on all
    rows, kept unless it scores worse than ``REFIT_SLACK`` above the chosen candidate."""
    sal = sal_.params
    assert isinstance(sal, SALParams)
    k = sal.folds
    fit_part = np.arange(sums.n_folds) != 0
    base = es.noise_variance(sums.part(fit_part)[0], int(sums.n[:, fit_part].sum()))
    fit_problem = held.sample(k, int(sums.n[:, fit_part].sum()))
    grid = sal_.grids["seeded"]
    solutions: list[Solution] = []
    for i, relative in enumerate(grid):
        reporter = _reporter(progress, offset + i * SEEDED_TICKS, erm=False)
        batches = stream(held.reader(k, held=False))
        lam = ls.candidate_lambda(relative, base)
        solution = _seeded_fit(
            sal, fit_problem, y_scale, w, reporter, batches, lam, adversary=relative != ls.OFF
        )
        if solution.stopped:  # the in-memory fit returns the candidate's partial solution
            return solution, None
        solutions.append(solution)
    stats = held.losses([s.model for s in solutions], k)
    candidates = []
    for i, relative in enumerate(grid):
        score, per_env = loss_stats.score_of(stats, i, True)
        candidates.append(
            ls.Candidate(
                None if relative == ls.OFF else relative,
                ls.candidate_lambda(relative, base),
                score,
                dict(zip(held.data.train, per_env, strict=True)),
                protection=protection(solutions[i]),
            )  # fmt: skip
        )
    candidates = loss_stats.with_paired_se(candidates, stats, range(len(grid)), True)
    first = erm_first_here(sal.erm_first, None)  # no slopes test on this path
    erm_se = loss_stats.paired_with_erm(candidates, stats, range(len(grid))) if first else None
    chosen, best, reason = ls.choose(
        candidates, sal.selection_se, sal_.prefer, erm_first=first, erm_se=erm_se
    )
    selection = ls.Selection(
        criterion="worst_env_validation_rmse", prefer=sal_.prefer, z=sal.selection_se,
        scoring=f"one held-out fold of {k} within each training environment", rows_scored=int(stats.n.sum()),
        base=base, candidates=tuple(candidates), chosen=chosen, best=best, reason=reason, erm_first=first,
    )  # fmt: skip
    lam = selection.lambda_
    reporter = _reporter(progress, offset + len(grid) * SEEDED_TICKS, erm=False)
    refit = _seeded_fit(
        sal, problem, y_scale, w, reporter, stream(held.read), lam, adversary=lam != ls.OFF_LAMBDA
    )
    refit_score = loss_stats.score_of(held.losses([refit.model], k), 0, True)[0]
    keep = refit_score <= (1 + REFIT_SLACK) * candidates[chosen].score or refit.stopped
    final = (
        "refit on all rows"
        if keep
        else "the chosen candidate, fitted without the held-out fold (the refit on all rows scored worse)"
    )
    return (refit if keep else solutions[chosen]), ls.FitSelection(selection, ls.Refit(refit_score, final))


def _reporter(progress: Callable[[int, dict[str, Any]], bool] | None, offset: int, *, erm: bool) -> Reporter:
    """The deep fit's progress as the job counts it: after the w-seeder's ``offset`` steps; ERM's
    one step as its in-memory fit reports it (``train_loss``, no w)."""

    def callback(step: int, total: int, metrics: RoundMetrics) -> bool:
        if progress is None:
            return False
        shown = dict(metrics)
        if erm:
            shown = {"train_loss": shown["risk"]} if "risk" in shown else {}
        return bool(progress(step + offset, shown))

    return Reporter(callback, 0)


def _round_of(r: Round, *, erm: bool) -> dict[str, Any]:
    """A deep fit's round as ``outofcore._round`` writes them (ERM's without w)."""
    return {"round": r.round, "risk": r.risk, "env_losses": dict(r.env_losses), "w": None if erm else r.w}
