"""Cross-fitting folds decided by each row's content, and the exact path's moments per fold.

A row's fold is a hash of its own values (covariates and target) mixed with the seed, so it does not
depend on where the row sits: listing the environments in another order, or shuffling rows inside
one, gives every row the same fold and the fit the same folds (issue 18: w changed with the order of
the environments because the held-out rows were drawn in that order). Covariates enter the hash by
name, not by position, so listing them in another order draws the same folds too. Each value is
read on the fit's own scale before it is hashed (:class:`KeyScale`: minus the pooled mean, over the
pooled standard deviation, on a grid of 2⁻¹⁶ of it), so a covariate or the target recorded in other
units (metres or centimetres, °C or K) draws the same folds, and a constant covariate draws none of
its own. Chunks of one table agree on the folds without talking to each other, for the same reason
(each reads the pooled scale from the stats pass).

The exact path needs only second moments, and moments of a union of folds are sums: one pass over
the rows keeps raw sums per (environment, fold), and the moments of "every fold but k", centred on
that part's own pooled mean, come from them in O(E·K·p²).
"""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import torch
from numpy.typing import NDArray

from sal_core.robust_linear import Moments

Array = NDArray[np.float64]

_MIX = np.uint64(0x9E3779B97F4A7C15)


def _splitmix(x: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """SplitMix64's finaliser, elementwise (wrapping uint64 arithmetic)."""
    with np.errstate(over="ignore"):
        x = x ^ (x >> np.uint64(30))
        x = x * np.uint64(0xBF58476D1CE4E5B9)
        x = x ^ (x >> np.uint64(27))
        x = x * np.uint64(0x94D049BB133111EB)
        return x ^ (x >> np.uint64(31))


def _splitmix_in_place(x: NDArray[np.uint64]) -> None:
    """:func:`_splitmix` into ``x`` itself: no temporaries the size of ``x`` but one."""
    with np.errstate(over="ignore"):
        shifted = x >> np.uint64(30)
        x ^= shifted
        x *= np.uint64(0xBF58476D1CE4E5B9)
        np.right_shift(x, np.uint64(27), out=shifted)
        x ^= shifted
        x *= np.uint64(0x94D049BB133111EB)
        np.right_shift(x, np.uint64(31), out=shifted)
        x ^= shifted


RAW_KEY_BLOCK = 4096
"""Rows hashed at a time by :func:`row_keys` on raw values: a block of every column at once, in
cache, instead of one strided column of every row at a time (the same keys, 1.4-1.5× faster at
100,000 × 10 and 50,000 × 1,000)."""


def _raw_column_hashes(X: NDArray[np.float64], salts: NDArray[np.uint64]) -> NDArray[np.uint64]:
    """Σ_j splitmix(bits(x_j) ^ salt_j) per row (mod 2⁶⁴), a block of rows at a time."""
    total = np.empty(X.shape[0], dtype=np.uint64)
    for start in range(0, X.shape[0], RAW_KEY_BLOCK):
        block = (X[start : start + RAW_KEY_BLOCK] + 0.0).view(np.uint64)  # a copy: -0.0 and 0.0 one value
        block ^= salts
        _splitmix_in_place(block)
        total[start : start + block.shape[0]] = block.sum(axis=1, dtype=np.uint64)
    return total


def _column_salt(name: str) -> np.uint64:
    """A 64-bit salt per covariate, from its name alone (not its position)."""
    return np.uint64(int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little"))


KEY_GRID_BITS = 16
"""A value enters the key as round(z · 2¹⁶), z its distance from the pooled mean in pooled standard
deviations: rows closer than 2⁻¹⁶ ≈ 1.5·10⁻⁵ standard deviations in every column share a key (and a
fold, as equal rows do), and the rounding of the pooled statistics (another row order, another
chunking: ~10⁻¹⁵ of a value) moves a value across a step of the grid about once in 10⁹ values."""


@dataclass(frozen=True)
class KeyScale:
    """The pooled location and scale that every row's values are read on before they are hashed:
    the covariates' (the fit's standardiser; a scale of 1 where a covariate is constant) and the
    target's (population standard deviation; 1 where y is constant). Computed once from all training
    rows, it gives a row the same key wherever it is read: in memory, in a chunk, in any order."""

    x_mean: Array
    x_scale: Array
    y_mean: float
    y_scale: float

    @classmethod
    def of(cls, x_mean: Array, x_scale: Array, ys: Sequence[Array]) -> KeyScale:
        """The covariates' standardiser (a scale of 1 where it is ~0) and the target's pooled mean and
        standard deviation."""
        y = np.concatenate([np.asarray(v, np.float64).ravel() for v in ys])
        sd = float(y.std()) if y.size else 0.0
        x_scale = np.asarray(x_scale, np.float64)
        return cls(
            np.asarray(x_mean, np.float64),
            np.where(x_scale > 1e-12, x_scale, 1.0),
            float(y.mean()) if y.size else 0.0,
            sd if sd > 1e-12 else 1.0,
        )


def _on_grid(values: Array, mean: float | Array, scale: float | Array) -> NDArray[np.uint64]:
    """round((v − mean) / scale · 2^KEY_GRID_BITS) as 64-bit words (two's complement)."""
    z = np.rint((np.asarray(values, np.float64) - mean) / scale * float(2**KEY_GRID_BITS))
    return np.ascontiguousarray(z.astype(np.int64)).view(np.uint64)


def row_keys(
    X: NDArray[np.float64],
    y: NDArray[np.float64],
    columns: Sequence[str] | None = None,
    scale: KeyScale | None = None,
) -> NDArray[np.uint64]:
    """A 64-bit key per row from the values of (x, y) (n,): equal rows get equal keys.

    Each covariate's value is hashed with a salt from the covariate's name (``columns``; unnamed
    covariates are x0, x1, ..., as ``sal_core.data.default_feature_names`` names them) and the hashes
    are summed (mod 2⁶⁴), so the key, and with it every fold, does not depend on the order in which
    the named covariates are listed. The salt keeps rows apart whose values are a permutation of
    one another's (one-hot columns): a sum of unsalted hashes gave 381 distinct rows 14 keys. On the
    pooled scale one column at a time, so the memory is O(n) whatever p; raw values a block of
    :data:`RAW_KEY_BLOCK` rows at a time (the same sums, in cache).

    With ``scale`` (the folds of a fit) each value is first read on the pooled scale, on the grid of
    :data:`KEY_GRID_BITS`, so the key does not change with the units of a covariate or of the
    target; a value at the pooled mean adds nothing, so a constant covariate leaves every key as it
    was. Without it the raw bytes are hashed (a sample of rows that must not depend on a scale)."""
    target = np.ascontiguousarray(np.asarray(y, np.float64)) + 0.0  # -0.0 and 0.0 are one value
    X = np.asarray(X, np.float64).reshape(target.shape[0], -1)
    names = list(columns) if columns is not None else [f"x{j}" for j in range(X.shape[1])]
    if len(names) != X.shape[1]:
        raise ValueError(f"{len(names)} column names for {X.shape[1]} covariates")
    salts = [_column_salt(name) for name in names]
    with np.errstate(over="ignore"):
        if scale is None:
            total = _raw_column_hashes(X, np.array(salts, dtype=np.uint64))
            y_words = target.view(np.uint64)
        else:
            total = np.zeros(target.shape[0], dtype=np.uint64)
            for j, salt in enumerate(salts):
                words = _on_grid(X[:, j], scale.x_mean[j], scale.x_scale[j])
                total += np.where(words == 0, np.uint64(0), _splitmix(words ^ salt))
            y_words = _on_grid(target, scale.y_mean, scale.y_scale)
        return _splitmix(total ^ _splitmix(y_words + _MIX))


def folds_of(keys: NDArray[np.uint64], seed: int, k: int) -> NDArray[np.int64]:
    """Fold in [0, k) per row: the row's key mixed with the seed (n,)."""
    salt = _splitmix(np.array([np.uint64(seed & 0xFFFFFFFFFFFFFFFF) ^ _MIX], dtype=np.uint64))[0]
    return (_splitmix(keys ^ salt) % np.uint64(k)).astype(np.int64)


def split_seed(seed: int, split: int) -> int:
    """The seed that decides split ``split`` of repeated cross-fitting: split 0 is ``seed`` itself
    (one split is the folds as they always were), each later one a SplitMix64 hash of (seed, split)."""
    if split == 0:
        return seed
    with np.errstate(over="ignore"):
        mixed = np.array([np.uint64(seed & 0xFFFFFFFFFFFFFFFF) ^ (_MIX * np.uint64(split))], dtype=np.uint64)
    return int(_splitmix(mixed)[0] >> np.uint64(1))


def dealt_where_a_fold_is_empty(
    keys: NDArray[np.uint64], folds: NDArray[np.int64], sizes: list[int], seed: int, k: int
) -> NDArray[np.int64]:
    """``folds`` with each environment that hashing left without rows in some fold dealt round the
    k folds instead, in the order of its rows' salted keys (rank mod k): every fold then holds out
    rows of it (all k once it has k rows; folds 0, 1, … below that) and the fits without a fold keep
    some. Hashing alone leaves an environment of 2 rows in one fold one time in 5, and an
    environment of 25 rows without any row in the held-out fold about one time in 260 (then it had
    no score). Dealing keeps the folds a function of the rows' content, so still independent of
    their order (``sizes``: rows per environment, pooled order). Environments whose hashed folds
    are all occupied keep them. The chunked paths hash alone."""
    out = folds.copy()
    salted = _splitmix(keys ^ np.uint64((seed * 0x9E3779B1 + 1) & 0xFFFFFFFFFFFFFFFF))
    start = 0
    for size in sizes:
        env = slice(start, start + size)
        if np.unique(folds[env]).size < k:
            rank = np.argsort(salted[env], kind="stable")
            out[start + rank] = np.arange(size) % k
        start += size
    return out


@dataclass(frozen=True)
class FoldSums:
    """Raw sums per (environment, fold) of standardised rows: z (p,), ỹ = y / y_scale.

    ``n`` (E, K), ``z`` (E, K, p), ``y`` (E, K), ``zz`` (E, K, p, p), ``zy`` (E, K, p), ``yy`` (E, K).
    """

    n: Array
    z: Array
    y: Array
    zz: Array
    zy: Array
    yy: Array

    @property
    def n_folds(self) -> int:
        return int(self.n.shape[1])

    def splits(self, repeats: int) -> list[FoldSums]:
        """The sums of each split of repeated cross-fitting, where the columns hold ``repeats``
        splits' K folds each, split-major (the chunked sums pass)."""
        k = self.n_folds // repeats
        names = [f.name for f in dataclasses.fields(self)]
        return [
            FoldSums(**{f: getattr(self, f)[:, j * k : (j + 1) * k] for f in names}) for j in range(repeats)
        ]

    def part(self, folds: NDArray[np.bool_]) -> tuple[Moments, Array, float]:
        """Moments of the rows in the folds marked True (K,), centred on their pooled means, and
        those means (z̄ (p,), ȳ in ỹ units)."""
        n = self.n[:, folds].sum(1)  # (E,)
        sz, sy = self.z[:, folds].sum(1), self.y[:, folds].sum(1)
        szz, szy, syy = self.zz[:, folds].sum(1), self.zy[:, folds].sum(1), self.yy[:, folds].sum(1)
        total = n.sum()
        z_bar, y_bar = sz.sum(0) / total, sy.sum() / total
        # Σ (z − z̄)(z − z̄)ᵀ over an environment's rows = Σzzᵀ − z̄ Σzᵀ − Σz z̄ᵀ + n z̄ z̄ᵀ
        gram = (
            szz
            - z_bar[None, :, None] * sz[:, None, :]
            - sz[:, :, None] * z_bar[None, None, :]
            + n[:, None, None] * np.outer(z_bar, z_bar)[None]
        ) / n[:, None, None]
        cross = (szy - z_bar[None] * sy[:, None] - y_bar * sz + (n * y_bar)[:, None] * z_bar[None]) / n[
            :, None
        ]
        yy = (syy - 2.0 * y_bar * sy + n * y_bar**2) / n
        return Moments.of_environments(gram, cross, yy, n), z_bar, float(y_bar)


def fold_sums(
    Z: torch.Tensor, y: torch.Tensor, env_index: torch.Tensor, folds: torch.Tensor, n_envs: int, k: int
) -> FoldSums:
    """One pass over the rows (on their device, in float64): the raw sums of every (env, fold) cell."""
    cell = env_index * k + folds
    cells = n_envs * k
    p = Z.shape[1]
    counts = torch.bincount(cell, minlength=cells)
    order = torch.argsort(cell, stable=True)  # rows grouped by cell, each cell one contiguous slice
    Zs, ys = Z.double()[order], y.double()[order]
    n = counts.double()
    sz = torch.zeros(cells, p, dtype=torch.float64, device=Z.device)
    sy = torch.zeros(cells, dtype=torch.float64, device=Z.device)
    syy = torch.zeros(cells, dtype=torch.float64, device=Z.device)
    szy = torch.zeros(cells, p, dtype=torch.float64, device=Z.device)
    szz = torch.zeros(cells, p, p, dtype=torch.float64, device=Z.device)
    start = 0
    for c, size in enumerate(counts.tolist()):  # E·K products of (n_c, p)ᵀ(n_c, p): the O(n·p²) pass
        if size:
            Zc, yc = Zs[start : start + size], ys[start : start + size]
            sz[c], sy[c], syy[c] = Zc.sum(0), yc.sum(), yc @ yc
            szy[c], szz[c] = Zc.T @ yc, Zc.T @ Zc
        start += size

    def grid(t: torch.Tensor) -> Array:
        a: Array = t.cpu().numpy()
        return a.reshape(n_envs, k, *a.shape[1:])

    return FoldSums(n=grid(n), z=grid(sz), y=grid(sy), zz=grid(szz), zy=grid(szy), yy=grid(syy))
