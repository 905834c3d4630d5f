"""Minibatches streamed from a table read chunk by chunk: what a network fit takes when the rows do
not fit in memory (issue 19: "MLPs stream minibatches from the chunks").

The table is a sequence of chunks (a stored dataset's row groups) that a :data:`ChunkReader` reads
one at a time. :class:`ShuffledChunks` turns them into an endless stream of ``batch_rows``-row
minibatches of standardised rows:

* every epoch visits the chunks in an order drawn from ``(seed, epoch)``, ``chunks_at_once`` (K) at
  a time: the K chunks' rows, with the rows left over from the previous K, are permuted (same
  generator) and cut into minibatches; what is left (< ``batch_rows`` rows) waits for the next K;
* an epoch's last leftover rows are dropped, as the in-memory schedule drops the tail of its
  permutation (:mod:`sal_core.deep_sal`), unless the epoch gave no minibatch at all (a table smaller
  than one minibatch: then its rows are the minibatch, full batch, held from then on rather than
  read again for every step: fewer than ``batch_rows`` rows);
* at most K chunks plus one leftover are held at once (``peak_rows`` records the most rows held),
  whatever the table's size.

Draws are numpy ``default_rng([seed, epoch])``: the same seed gives the same minibatches on any
device, and a stream restarted with the same seed repeats itself. This is a shuffle buffer, not a
uniform permutation of the table: two rows of chunks far apart in an epoch's order never share a
minibatch that epoch (with K ≥ 2 and the chunk order redrawn each epoch, every pair can meet).

:func:`sample_rows` draws a fixed sample of at most ``max_rows`` rows in one pass (each row kept by a
hash of its content and the seed, :mod:`sal_core.cross_fit`), for what the fit evaluates on a fixed
set of rows (the environment losses, the certificate).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol

import numpy as np
import torch
from numpy.typing import NDArray

from sal_core import cross_fit

__all__ = ["ChunkReader", "ChunkRows", "MinibatchSource", "ShuffledChunks", "sample_rows"]


@dataclass(frozen=True)
class ChunkRows:
    """Rows of one chunk: environment index (m,), raw X (m, p), y (m,). A :data:`ChunkReader`'s rows index
    the fit's environments; the app's decoded row groups (app.datasets.chunks) the dataset's."""

    env: NDArray[np.int64]
    X: NDArray[np.float64]
    y: NDArray[np.float64]


ChunkReader = Callable[[int], ChunkRows]
"""Reads chunk i (0 ≤ i < n_chunks) of the table: its training rows, raw (not standardised)."""


class MinibatchSource(Protocol):
    """An endless stream of (Z (b, p) standardised, y (b,) in the target's units) minibatches."""

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]: ...


class ShuffledChunks:
    """Minibatches of ``batch_rows`` standardised rows from ``n_chunks`` chunks, K at a time (see
    the module's docstring). ``mean`` and ``scale`` (p,) standardise X as the fit's
    :class:`sal_core.data.Standardizer` does; tensors come in ``dtype`` on ``device``."""

    def __init__(
        self,
        read: ChunkReader,
        n_chunks: int,
        *,
        mean: NDArray[np.float64],
        scale: NDArray[np.float64],
        batch_rows: int,
        chunks_at_once: int,
        seed: int,
        dtype: torch.dtype = torch.float64,
        device: torch.device | str = "cpu",
    ) -> None:
        if n_chunks < 1 or batch_rows < 1 or chunks_at_once < 1:
            raise ValueError("n_chunks, batch_rows and chunks_at_once must be at least 1")
        self._read = read
        self._n_chunks = n_chunks
        self._mean, self._scale = np.asarray(mean, np.float64), np.asarray(scale, np.float64)
        self._batch_rows = batch_rows
        self._k = chunks_at_once
        self._seed = seed
        self._dtype, self._device = dtype, torch.device(device)
        self.peak_rows = 0  # the most rows held at once (the K chunks and the leftover)
        self.epochs = 0  # epochs started
        self._whole: tuple[torch.Tensor, torch.Tensor] | None = None  # a table under one minibatch

    def __iter__(self) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        epoch = 0
        while True:
            self.epochs = epoch + 1
            batches = 0
            for Z, y in self._epoch(epoch):
                batches += 1
                yield Z, y
            if batches == 0:
                raise ValueError("the chunks hold no rows")
            if self._whole is not None:  # under one minibatch: held (< batch_rows rows), not re-read
                while True:
                    yield self._whole
            epoch += 1

    def _epoch(self, epoch: int) -> Iterator[tuple[torch.Tensor, torch.Tensor]]:
        rng = np.random.default_rng([self._seed, epoch])
        order = rng.permutation(self._n_chunks)
        p = self._mean.shape[0]
        left_X, left_y = np.empty((0, p)), np.empty(0)
        yielded = False
        for start in range(0, self._n_chunks, self._k):
            read = [self._read(int(i)) for i in order[start : start + self._k]]
            X = np.concatenate([left_X, *(r.X for r in read)])
            y = np.concatenate([left_y, *(r.y for r in read)])
            del read
            self.peak_rows = max(self.peak_rows, int(y.shape[0]))
            perm = rng.permutation(y.shape[0])
            whole = (y.shape[0] // self._batch_rows) * self._batch_rows
            for b in range(0, whole, self._batch_rows):
                rows = perm[b : b + self._batch_rows]
                yielded = True
                yield self._tensors(X[rows], y[rows])
            left_X, left_y = X[perm[whole:]], y[perm[whole:]]
        if not yielded and left_y.shape[0] > 0:  # smaller than one minibatch: full batch
            self._whole = self._tensors(left_X, left_y)
            yield self._whole

    def _tensors(self, X: NDArray[np.float64], y: NDArray[np.float64]) -> tuple[torch.Tensor, torch.Tensor]:
        Z = torch.as_tensor((X - self._mean) / self._scale, dtype=self._dtype).to(self._device)
        return Z, torch.as_tensor(y, dtype=self._dtype).to(self._device)


def sample_rows(read: ChunkReader, n_chunks: int, n_rows: int, max_rows: int, seed: int) -> ChunkRows:
    """A fixed sample of at most ``max_rows`` of the table's ``n_rows`` rows, in one pass: every row
    when ``n_rows ≤ max_rows``, else the rows whose content hash (mixed with ``seed``) falls in the
    first of ⌈n_rows / max_rows⌉ buckets, the first ``max_rows`` of them in chunk order. Holds one
    chunk and the sample."""
    buckets = max(1, -(-n_rows // max_rows))
    env: list[NDArray[np.int64]] = []
    X: list[NDArray[np.float64]] = []
    y: list[NDArray[np.float64]] = []
    kept = 0
    for i in range(n_chunks):
        rows = read(i)
        if buckets > 1:
            keep = cross_fit.folds_of(cross_fit.row_keys(rows.X, rows.y), seed, buckets) == 0
            rows = ChunkRows(rows.env[keep], rows.X[keep], rows.y[keep])
        take = min(max_rows - kept, rows.y.shape[0])
        env.append(rows.env[:take])
        X.append(rows.X[:take])
        y.append(rows.y[:take])
        kept += take
        if kept >= max_rows:
            break
    return ChunkRows(np.concatenate(env), np.concatenate(X), np.concatenate(y))
