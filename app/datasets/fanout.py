"""One pass over a stored dataset's chunks, fanned out as Celery chunk tasks and reduced in the
parent (issue 19's scale-out path for the linear fits).

A pass is a list of *parts*, each a few consecutive row groups. The parent sends one task per part
to the chunk queue; each task reads only its row groups (by byte ranges), computes the part's
partial sums and puts them in the dataset's store under ``scratch/<run>/<pass>-<inputs>/<part>.npz``
(``<inputs>`` a digest of the pass's parameters, :attr:`Part.directory`). The
parent then waits for every part, and meanwhile computes, from the last part backwards, any part
no task has started: with no chunk worker at all it does the whole pass itself, and a part whose
task was lost is done by the parent once it has stalled for ``stall_s``. The reduce reads one
object per part, in part order, so:

* a retried part (its worker killed mid-pass: ``acks_late`` + ``reject_on_worker_lost`` send the
  message back) overwrites its object with the same bytes, and is never counted twice;
* the result is bit-identical whoever computed which part, in whatever order (a part's sums are
  added chunk by chunk in chunk order, the parts in part order).

Passes (each returns arrays per environment of the dataset, all environments, but ``oof``):

    stats    n, mean and sum of squared deviations of x (p,) and y, merged by Chan's update
    sums     sal_core.cross_fit.fold_sums of standardised rows, y / y_scale: one fold, or with
             ``folds`` and ``seed`` the cross-fitting folds, decided by each row's content as in
             memory (sal_core.lambda_selection.row_folds: the raw row's key, the fit's seed)
    refold   the sums pass again on other folds (SAL's ``folds_untested``, where the sums on the
             plan's folds show that no slopes test can run); its parts' objects would not meet the
             first pass's under the same name either, as their parameters differ
    oof      sal_core.loss_stats.LossStats of the candidates' out-of-fold losses under the fold
             fits in ``theta``, ``z_bar``, ``y_bar`` (sal_core.exact_selection.FoldFits), per
             training environment (``train``, in that order)
    metrics  n, sum of squared and of absolute residuals of a linear model in original units, or
             of an MLP (its weights in the parameters); with a ``reference`` linear model, the sums
             a paired comparison of the two on the same rows needs (Σr⁴, Σs², Σs⁴, Σr²s²)
"""

from __future__ import annotations

import dataclasses
import hashlib
import io
import json
import logging
import os
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import torch
from numpy.typing import NDArray
from threadpoolctl import ThreadpoolController

from app.datasets import chunks
from app.storage import ObjectNotFound, ObjectStore, check_key
from sal_core import cross_fit
from sal_core.cross_fit import FoldSums
from sal_core.data import Standardizer
from sal_core.exact_selection import FoldFits, mean_oof_losses
from sal_core.fitted import FittedModel
from sal_core.loss_stats import LossStats
from sal_core.minibatches import ChunkRows
from sal_core.models import ModelSpec

__all__ = [
    "Part",
    "Pass",
    "PassStopped",
    "compute_part",
    "merge_stats",
    "plan_parts",
    "reduce_parts",
    "run_pass",
    "scratch_prefix",
]

log = logging.getLogger(__name__)
_threadpools = (
    ThreadpoolController()
)  # found once: threadpool_limits() scans the libraries each time (0.6 ms)

Array = NDArray[np.float64]
Arrays = dict[str, Array]


@dataclass(frozen=True)
class Part:
    """What one chunk task computes: JSON in the task message (floats round-trip exactly)."""

    run: str  # one fit (the job id): its parts' objects live under scratch/<run>/
    pass_name: str
    index: int
    groups: tuple[int, ...]  # row groups of the stored table
    storage: str
    key: str
    environments: tuple[str, ...]
    feature_names: tuple[str, ...]
    target: str
    params: dict[str, Any]  # the pass's inputs: standardiser, y_scale, a model's coefficients
    inputs: str  # a digest of params (:func:`digest`), computed once per pass

    def to_json(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "pass": self.pass_name,
            "index": self.index,
            "groups": list(self.groups),
            "storage": self.storage,
            "key": self.key,
            "environments": list(self.environments),
            "feature_names": list(self.feature_names),
            "target": self.target,
            "params": self.params,
            "inputs": self.inputs,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Part:
        return cls(
            run=d["run"], pass_name=d["pass"], index=int(d["index"]), groups=tuple(d["groups"]),
            storage=d["storage"], key=d["key"], environments=tuple(d["environments"]),
            feature_names=tuple(d["feature_names"]), target=d["target"], params=d["params"],
            inputs=d.get("inputs") or digest(d["params"]),
        )  # fmt: skip

    @property
    def directory(self) -> str:
        """Where the pass's objects live: named by the pass and a digest of its parameters, so a
        pass run again in the same run with other inputs (another fold count, another model) never
        takes the first one's objects for its own parts, done; the same pass resumed after a crash
        finds them."""
        return f"{scratch_prefix(self.run)}{self.pass_name}-{self.inputs}/"

    @property
    def result_key(self) -> str:
        return f"{self.directory}{self.index}.npz"

    @property
    def started_key(self) -> str:
        return f"{self.directory}{self.index}.started"


def digest(params: dict[str, Any]) -> str:
    """A pass's parameters, named in 16 hex digits (their JSON's SHA-256, keys sorted)."""
    return hashlib.sha256(json.dumps(params, sort_keys=True).encode()).hexdigest()[:16]


def scratch_prefix(run: str) -> str:
    return check_key(f"scratch/{run}/x")[:-1]


@dataclass(frozen=True)
class Pass:
    """A pass to run: its name, its inputs, and whether a cancel may stop it (the passes before
    the model is solved; the last one, which scores a model already there, runs to its end)."""

    name: str
    params: dict[str, Any]
    stoppable: bool = True


class PassStopped(InterruptedError):
    """:func:`run_pass` was asked to stop (the job was cancelled, or is no longer this worker's)."""


def plan_parts(
    n_groups: int, groups_per_part: int, run: str, what: Pass, *, storage: str, key: str,
    environments: Sequence[str], feature_names: Sequence[str], target: str,
) -> list[Part]:  # fmt: skip
    """The pass split into parts of ``groups_per_part`` consecutive row groups."""
    step = max(1, groups_per_part)
    inputs = digest(what.params)
    return [
        Part(
            run,
            what.name,
            i,
            tuple(range(start, min(start + step, n_groups))),
            storage,
            key,
            tuple(environments),
            tuple(feature_names),
            target,
            what.params,
            inputs,
        )  # fmt: skip
        for i, start in enumerate(range(0, n_groups, step))
    ]


# ------------------------------------------------------------------------------------ per part
def _stats(chunk: ChunkRows, n_envs: int) -> Arrays:
    """Per environment: n, mean and M2 (sum of squared deviations from that mean) of x and y."""
    p = chunk.X.shape[1]
    out = {
        "n": np.zeros(n_envs),
        "mx": np.zeros((n_envs, p)),
        "m2x": np.zeros((n_envs, p)),
        "my": np.zeros(n_envs),
        "m2y": np.zeros(n_envs),
    }
    for e in range(n_envs):
        rows = chunk.env == e
        n = int(rows.sum())
        if n == 0:
            continue
        X, y = chunk.X[rows], chunk.y[rows]
        mx, my = X.mean(0), float(y.mean())
        out["n"][e] = n
        out["mx"][e], out["m2x"][e] = mx, ((X - mx) ** 2).sum(0)
        out["my"][e], out["m2y"][e] = my, float(((y - my) ** 2).sum())
    return out


def merge_stats(a: Arrays, b: Arrays) -> Arrays:
    """Chan et al.'s pairwise update, per environment: the stats of a's rows and b's rows together."""
    n = a["n"] + b["n"]
    safe = np.where(n > 0, n, 1.0)
    out = {"n": n}
    for mean, m2 in (("mx", "m2x"), ("my", "m2y")):
        na, nb = a["n"], b["n"]
        if a[mean].ndim == 2:
            na, nb, nn = na[:, None], nb[:, None], safe[:, None]
        else:
            nn = safe
        delta = b[mean] - a[mean]
        out[mean] = a[mean] + delta * nb / nn
        out[m2] = a[m2] + b[m2] + delta**2 * na * nb / nn
    return out


def _split_folds(chunk: ChunkRows, params: dict[str, Any], columns: Sequence[str]) -> list[NDArray[np.int64]]:
    """Each row's cross-fitting fold (n,) under each of the ``repeats`` splits, or one split of all
    0 without ``folds``: from the row's content key (read on the pooled scale, :func:`key_scale_of`)
    and the seed, as ``lambda_selection.row_folds`` decides it for the rows in memory."""
    k = int(params.get("folds", 1))
    if k == 1:
        return [np.zeros(chunk.y.shape[0], dtype=np.int64)]
    keys = cross_fit.row_keys(chunk.X, chunk.y, columns, key_scale_of(params))
    seed = int(params["seed"])
    repeats = int(params.get("repeats", 1))
    return [cross_fit.folds_of(keys, cross_fit.split_seed(seed, j), k) for j in range(repeats)]


def key_scale_of(params: dict[str, Any]) -> cross_fit.KeyScale:
    """The pooled scale a pass reads the rows' content keys on: the standardiser's ``mean`` and
    ``scale`` and the target's ``key_y_mean`` and ``key_y_scale`` (``outofcore.key_params``)."""
    return cross_fit.KeyScale(
        np.asarray(params["mean"], np.float64),
        np.asarray(params["scale"], np.float64),
        float(params["key_y_mean"]),
        float(params["key_y_scale"]),
    )


def _scaled(chunk: ChunkRows, rows: NDArray[np.bool_], params: dict[str, Any]) -> tuple[Array, Array]:
    """(z, ỹ) of the rows: z = (x − mean) / scale, ỹ = y / y_scale."""
    Z = (chunk.X[rows] - np.asarray(params["mean"])) / np.asarray(params["scale"])
    return Z, chunk.y[rows] / float(params["y_scale"])


def _sums(chunk: ChunkRows, n_envs: int, params: dict[str, Any], columns: Sequence[str]) -> Arrays:
    """Per (environment, fold): n, Σz, Σzzᵀ, Σzỹ, Σỹ, Σỹ² of z and ỹ (:func:`_scaled`), the cells
    of :class:`sal_core.cross_fit.FoldSums`; with ``repeats`` splits, K columns per split,
    split-major (``FoldSums.splits``). numpy's products per cell, not ``cross_fit.fold_sums``: its
    torch ``index_add_`` took 0.4 s of a 20,000-row chunk on this CPU (docs/scale.md), these take a
    few milliseconds."""
    k = int(params.get("folds", 1))
    splits = _split_folds(chunk, params, columns)
    p = chunk.X.shape[1]
    cols = k * len(splits)
    out = {
        "n": np.zeros((n_envs, cols)),
        "z": np.zeros((n_envs, cols, p)),
        "y": np.zeros((n_envs, cols)),
        "zz": np.zeros((n_envs, cols, p, p)),
        "zy": np.zeros((n_envs, cols, p)),
        "yy": np.zeros((n_envs, cols)),
    }
    for e in range(n_envs):
        for split, folds in enumerate(splits):
            for j in range(k):
                rows = (chunk.env == e) & (folds == j)
                if not rows.any():
                    continue
                Z, y = _scaled(chunk, rows, params)
                c = split * k + j
                out["n"][e, c] = Z.shape[0]
                out["z"][e, c] = Z.sum(0)
                out["y"][e, c] = y.sum()
                out["zz"][e, c] = Z.T @ Z
                out["zy"][e, c] = Z.T @ y
                out["yy"][e, c] = y @ y
    return out


def _oof(chunk: ChunkRows, params: dict[str, Any], columns: Sequence[str]) -> Arrays:
    """:class:`LossStats` of the rows of the training environments ``train`` (in that order): each
    row's squared error under each candidate's fit on the folds other than its own
    (:func:`sal_core.exact_selection.mean_oof_losses`, the arithmetic of the fit in memory), its mean
    over the splits of repeated cross-fitting."""
    fits = FoldFits(
        theta=np.asarray(params["theta"], dtype=np.float64),
        z_bar=np.asarray(params["z_bar"], dtype=np.float64),
        y_bar=np.asarray(params["y_bar"], dtype=np.float64),
    )
    splits = _split_folds(chunk, params, columns)
    losses = []
    for e in params["train"]:
        rows = chunk.env == int(e)
        Z, y = _scaled(chunk, rows, params)
        losses.append(
            mean_oof_losses(Z, y, [folds[rows] for folds in splits], fits, float(params["y_scale"]))
        )
    return _arrays_of(LossStats.of_rows(losses))


def _arrays_of(stats: LossStats) -> Arrays:
    return {f.name: getattr(stats, f.name) for f in dataclasses.fields(stats)}


def _metrics(chunk: ChunkRows, n_envs: int, params: dict[str, Any]) -> Arrays:
    """Per environment: n, Σr², Σ|r| of a linear model's residuals (``coef``, ``intercept``, original
    units), or of a network's (``model``, its ``state`` and the standardiser's ``mean``, ``scale``)."""
    if "state" in params:
        resid = chunk.y - _network(params).predict(chunk.X)
    else:
        coef, intercept = np.asarray(params["coef"]), float(params["intercept"])
        resid = chunk.y - (chunk.X @ coef + intercept)

    def per_env(values: np.ndarray) -> np.ndarray:
        return np.bincount(chunk.env, weights=values, minlength=n_envs).astype(np.float64)

    out = {
        "n": np.bincount(chunk.env, minlength=n_envs).astype(np.float64),
        "sq": per_env(resid**2),
        "abs": per_env(np.abs(resid)),
    }
    if "reference" in params:  # a second linear model scored on the same rows, paired
        ref = params["reference"]
        ref_sq = (chunk.y - (chunk.X @ np.asarray(ref["coef"]) + float(ref["intercept"]))) ** 2
        sq = resid**2
        out |= {"quad": per_env(sq**2), "ref_sq": per_env(ref_sq), "ref_quad": per_env(ref_sq**2),
                "cross": per_env(sq * ref_sq)}  # fmt: skip
    return out


def _network(params: dict[str, Any]) -> FittedModel:
    """The network a metrics pass scores, from its parameters (JSON: floats round-trip exactly)."""
    mean = np.asarray(params["mean"], dtype=np.float64)
    state = {k: torch.as_tensor(v, dtype=torch.float64) for k, v in params["state"].items()}
    names = tuple(f"x{j}" for j in range(mean.shape[0]))
    spec = ModelSpec.from_mapping(params["model"])
    scaling = Standardizer(mean=mean, scale=np.asarray(params["scale"], dtype=np.float64))
    return FittedModel("regression", spec, names, scaling, state, None)


SUMS_PASSES = ("sums", "refold")
"""The passes that compute :func:`sal_core.cross_fit.fold_sums`: the first, and the same sums on
other folds (the module's docstring says when)."""


def _add(a: Arrays, b: Arrays, pass_name: str) -> Arrays:
    if pass_name == "stats":
        return merge_stats(a, b)
    return {k: a[k] + b[k] for k in a}


def compute_part(store: ObjectStore, part: Part) -> Arrays:
    """The part's sums: its row groups one at a time, added in order, BLAS on one thread (a part
    is one core's work; on a loaded 2-core host OpenBLAS's own threads made a 20,000-row chunk's
    products 150x slower)."""
    with _threadpools.limit(limits=1):
        return _compute_part(store, part)


def _compute_part(store: ObjectStore, part: Part) -> Arrays:
    n_envs = len(part.environments)
    total: Arrays | None = None
    for chunk in chunks.iter_chunks(
        store, part.key, environments=part.environments, feature_names=part.feature_names,
        target=part.target, only=part.groups,
    ):  # fmt: skip
        if part.pass_name == "stats":
            one = _stats(chunk, n_envs)
        elif part.pass_name in SUMS_PASSES:
            one = _sums(chunk, n_envs, part.params, part.feature_names)
        elif part.pass_name == "metrics":
            one = _metrics(chunk, n_envs, part.params)
        elif part.pass_name == "oof":
            one = _oof(chunk, part.params, part.feature_names)
        else:
            raise ValueError(f"unknown pass {part.pass_name!r}")
        total = one if total is None else _add(total, one, part.pass_name)
    if total is None:
        raise ValueError(f"part {part.index} of {part.run} has no rows")
    return total


def _encode(arrays: Arrays) -> bytes:
    sink = io.BytesIO()
    np.savez(sink, **arrays)  # type: ignore[arg-type]
    return sink.getvalue()


def _decode(data: bytes) -> Arrays:
    with np.load(io.BytesIO(data)) as npz:
        return {k: np.asarray(npz[k], dtype=np.float64) for k in npz.files}


def do_part(store: ObjectStore, part: Part, *, worker: str = "", pause_s: float = 0.0) -> bool:
    """A chunk task's work: compute the part unless its result is there already (a redelivered
    message) or its run has ended, marking it started (with this process's pid) first. True when
    it computed. ``pause_s`` holds the part after its marker (fault tests kill it there)."""
    closed = _closed_key(part.run)
    if store.exists(part.result_key) or store.exists(closed):
        return False
    marker = {"pid": os.getpid(), "worker": worker, "at": time.time()}
    store.put(part.started_key, json.dumps(marker).encode())
    if pause_s > 0:
        time.sleep(pause_s)
    sums = _encode(compute_part(store, part))
    if store.exists(closed):  # the parent finished without it meanwhile: leave no orphan
        return False
    store.put(part.result_key, sums)
    return True


def _closed_key(run: str) -> str:
    return f"{scratch_prefix(run)}closed"


def _started_at(store: ObjectStore, part: Part) -> float | None:
    try:
        return float(json.loads(store.get(part.started_key))["at"])
    except ObjectNotFound:
        return None


def run_pass(
    store: ObjectStore,
    parts: Sequence[Part],
    send: Callable[[Part], None] | None,
    *,
    stall_s: float,
    help_: bool = True,
    poll_s: float = 0.05,
    clock: Callable[[], float] = time.time,
    stop: Callable[[], bool] = lambda: False,
) -> Iterator[Arrays]:
    """Run a pass: send every part (``send``: None keeps it all here), help with parts no task has
    started (``help_``), redo any part stalled for ``stall_s``, and return the parts' sums in
    order, each read from the store as it is consumed (at 5,000 parts a sums pass's objects are
    ~350 MB: held at once they grew the job's worker with the part count), so consume them before
    the run's objects are removed (:func:`clean`). ``stop`` is asked before anything is sent and
    then at each step, so before each part computed here (a cancel): True raises
    :class:`PassStopped`.

    What it costs the parent does not grow with the parts done: a part it takes is found by one
    existence check of its marker (from the last part backwards, while chunk tasks go forwards),
    and only when it finds none does it list the pass's objects, at most about every
    ``max(poll_s, 5 x the last listing's time)`` (a listing is one request per 1,000 objects on S3,
    and 190 ms for 10,000 objects on the local store: listed at every step, it cost the job more
    than the parts' arithmetic at thousands of parts)."""
    if not parts:
        return iter(())
    if stop():
        raise PassStopped(f"pass {parts[0].pass_name} was stopped before it started")
    if send is not None:
        for part in parts:
            send(part)
    prefix = parts[0].directory
    pending = list(parts)
    started: set[str] = set()  # marker keys seen, by a listing or a check
    checked = clock()
    while pending:
        if stop():
            raise PassStopped(f"pass {parts[0].pass_name} was stopped")
        mine = _last_unstarted_part(store, pending, started) if help_ or send is None else None
        if mine is None:
            listed_at = time.perf_counter()
            listed = {o.key for o in store.list(prefix)}
            listing_s = time.perf_counter() - listed_at
            started |= {p.started_key for p in pending if p.started_key in listed}
            pending = [p for p in pending if p.result_key not in listed]
            if not pending:
                break
            if clock() - checked > min(stall_s, 5.0):  # markers read now and then
                checked = now = clock()
                mine = next(
                    (p for p in pending if (t := _started_at(store, p)) is not None and now - t > stall_s),
                    None,
                )
            if mine is None:
                time.sleep(max(poll_s, 5 * listing_s))
                continue
        log.info("computing part %d of pass %s here", mine.index, mine.pass_name)
        store.put(mine.started_key, json.dumps({"pid": os.getpid(), "at": clock()}).encode())
        started.add(mine.started_key)
        store.put(mine.result_key, _encode(compute_part(store, mine)))
        pending.remove(mine)
    return (_decode(store.get(p.result_key)) for p in parts)


def _last_unstarted_part(store: ObjectStore, pending: Sequence[Part], started: set[str]) -> Part | None:
    """The last pending part whose marker is not there (one check per part not yet seen started),
    or None."""
    for part in reversed(pending):
        if part.started_key in started:
            continue
        if not store.exists(part.started_key):
            return part
        started.add(part.started_key)
    return None


def reduce_parts(results: Iterable[Arrays], pass_name: str) -> Arrays:
    """The parts' sums added in part order (deterministic), one part held at a time."""
    parts = iter(results)
    total = next(parts, None)
    if total is None:
        raise ValueError(f"pass {pass_name} has no parts to reduce")
    for one in parts:
        total = _add(total, one, pass_name)
    return total


def fold_sums_of(arrays: Arrays) -> FoldSums:
    return FoldSums(
        n=arrays["n"], z=arrays["z"], y=arrays["y"], zz=arrays["zz"], zy=arrays["zy"], yy=arrays["yy"]
    )


def clean(store: ObjectStore, run: str) -> None:
    """End a run: mark it closed (a chunk task still queued for it then does nothing), and remove
    its parts' objects. The marker (a few bytes) stays."""
    closed = _closed_key(run)
    store.put(closed, b"")
    for info in store.list(scratch_prefix(run)):
        if info.key != closed:
            store.delete(info.key)
