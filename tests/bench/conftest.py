"""Fixtures of the bench tests."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import pytest

from bench import real_dev as rd


@pytest.fixture
def tables_run(monkeypatch: pytest.MonkeyPatch) -> Callable[[Sequence[str]], list[str]]:
    """``bench.real_dev.main`` with these arguments, answering the tables it would run (in order)
    instead of fitting them."""

    def run(argv: Sequence[str]) -> list[str]:
        names: list[str] = []

        def record(chosen: list[str], *args: object) -> list[rd.Outcome]:
            names.extend(chosen)
            return []

        monkeypatch.setattr(rd, "run", record)
        rd.main(list(argv))
        return names

    return run
