"""docs/real-scoreboard.md adds up: every cell's bold mark, every batch's count, the totals under the
table and the totals README.md and docs/sal.md quote are what the page's own rows give.

The rows are pasted from ``bench.real_scoreboard report``; the counts around them are written by
hand as batches are added, and once drifted (docs/sal.md's list of misses on unseen seeds counted 32
of 33). Nothing here asserts a measured figure: only that the page's summaries are its rows' sums."""

from __future__ import annotations

import math
import re
import statistics
from dataclasses import dataclass

import pytest

from bench import real_dev as rd
from bench import real_scoreboard as sb
from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "real-scoreboard.md").read_text()
ROW = re.compile(
    r"^\| (?P<group>[a-z_]+) \| (?P<table>[a-z0-9_]+) \| (?P<task>regression|classification) \| "
    r"(?P<direction>forward|reversed) \| (?P<dev>[^|]+) \| (?P<unseen>[^|]+) \|$",
    re.MULTILINE,
)
CELL = re.compile(r"^(\*\*)?(?P<mean>\d+\.\d{4}) \((?P<worst>\d+\.\d{4})\)(\*\*)?$")
SEED_SETS = ("dev", "unseen")


@dataclass(frozen=True)
class Cell:
    mean: float
    worst: float
    bold: bool

    @property
    def meets(self) -> bool:
        if self.mean == rd.TARGET_MEAN or self.worst == rd.TARGET_WORST:
            return not self.bold  # at a target to four decimals: the unrounded value's mark decides
        return self.mean <= rd.TARGET_MEAN and self.worst <= rd.TARGET_WORST


def _cell(text: str) -> Cell:
    match = CELL.match(text.strip())
    assert match, f"not a scoreboard cell: {text!r}"
    return Cell(float(match["mean"]), float(match["worst"]), text.strip().startswith("**"))


ROWS = [
    (m["group"], m["table"], m["direction"], {s: _cell(m[s]) for s in SEED_SETS}) for m in ROW.finditer(PAGE)
]


def _counts(cells: list[Cell]) -> tuple[int, int, int, float]:
    """(meet the targets, more than 1% below ERM, more than 1% above, geometric mean of the means)."""
    return (
        sum(c.meets for c in cells),
        sum(c.mean < sb.BELOW for c in cells),
        sum(c.mean > sb.ABOVE for c in cells),
        math.exp(statistics.fmean(math.log(c.mean) for c in cells)),
    )


def test_the_page_has_a_row_per_table_direction_of_every_group_and_no_other() -> None:
    assert ROWS, "no scoreboard rows found"
    keys = [(table, direction) for _, table, direction, _ in ROWS]
    assert len(keys) == len(set(keys))
    groups = sb.groups()
    assert {table for _, table, _, _ in ROWS} == {t for names in groups.values() for t in names}
    assert all(table in groups[group] for group, table, _, _ in ROWS)
    assert all((table, "forward") in keys for table, _ in keys)


@pytest.mark.parametrize("seed_set", SEED_SETS)
def test_a_cell_is_bold_exactly_where_it_misses_a_target(seed_set: str) -> None:
    wrong = [(t, d) for _, t, d, cells in ROWS if cells[seed_set].bold == cells[seed_set].meets]
    assert not wrong


def test_the_totals_under_the_table_are_the_rows_sums() -> None:
    line = next(line for line in PAGE.splitlines() if line.startswith("Table-directions meeting the targets"))
    numbers = [int(x) for pair in re.findall(r"(\d+) of (\d+)", line) for x in pair]
    geometric = [float(g) for g in re.findall(r"seeds: (\d\.\d{4})\.?", line)]
    n = len(ROWS)
    (dev_met, dev_below, dev_above, dev_gm), (un_met, un_below, un_above, un_gm) = (
        _counts([cells[s] for _, _, _, cells in ROWS]) for s in SEED_SETS
    )
    assert numbers == [dev_met, n, un_met, n, dev_below, n, un_below, n, dev_above, n, un_above, n]
    # the report takes the geometric mean of unrounded means; the page's means are rounded to 4 places
    assert geometric == pytest.approx([dev_gm, un_gm], abs=1.5e-4)


BATCH_ROWS = {
    # the page: | what | `--flag` (or `bench.real_dev` for the development set) | dev | unseen (seeds) |
    "docs/real-scoreboard.md": r"^\| [^|]+ \| (`--(?P<flag>[a-z_]+)`|`bench\.real_dev`[^|]*) \| "
    r"(?P<dev>\d+ of \d+) \| (?P<unseen>\d+ of \d+)[^|]* \|$",
    # docs/sal.md's "Where it stands": | what (`--flag`: ...) | "section" | dev | unseen |
    "docs/sal.md": r"^\| (\d+ development tables, \d+ table-directions|[^|]*\(`--(?P<flag>[a-z_]+)`[^|]*) \| [^|]+ \| "
    r"(?P<dev>\d+ of \d+) \| (?P<unseen>\d+ of \d+)[^|]* \|$",
}


@pytest.mark.parametrize("document", list(BATCH_ROWS))
def test_each_batch_count_is_its_rows(document: str) -> None:
    by_flag: dict[str, tuple[str, str]] = {}
    for line in (ROOT / document).read_text().splitlines():
        match = re.match(BATCH_ROWS[document], line)
        if match:
            by_flag[match["flag"] or "dev"] = (match["dev"], match["unseen"])
    assert set(by_flag) == set(sb.groups())
    for group, (dev, unseen) in by_flag.items():
        cells = [c for g, _, _, c in ROWS if g == group]
        for seed_set, quoted in zip(SEED_SETS, (dev, unseen), strict=True):
            assert quoted == f"{sum(c[seed_set].meets for c in cells)} of {len(cells)}", (group, seed_set)


@pytest.mark.parametrize(
    ("document", "pattern"),
    [
        ("docs/real-scoreboard.md", r"\| \*\*all (\d+) tables\*\* \| \| \*\*(\d+) of (\d+)\*\*[^|]*\| \*\*(\d+) of (\d+)\*\*"),
        ("README.md", r"\| \*\*all (\d+) tables\*\* \| \*\*(\d+) of (\d+)\*\*[^|]*\| \*\*(\d+) of (\d+)\*\*"),
        ("docs/sal.md", r"\| \*\*(\d+) tables\*\* \| \| \*\*(\d+) of (\d+)\*\*[^|]*\| \*\*(\d+) of (\d+)\*\*"),
    ],
)  # fmt: skip
def test_the_quoted_totals_are_the_pages(document: str, pattern: str) -> None:
    match = re.search(pattern, (ROOT / document).read_text())
    assert match, f"no totals row in {document}"
    tables, dev_met, dev_n, un_met, un_n = (int(g) for g in match.groups())
    assert tables == len({t for _, t, _, _ in ROWS})
    assert (dev_n, un_n) == (len(ROWS), len(ROWS))
    assert (dev_met, un_met) == tuple(sum(c[s].meets for _, _, _, c in ROWS) for s in SEED_SETS)


def test_docs_sal_counts_the_misses_on_unseen_seeds_it_lists() -> None:
    match = re.search(r"The (\d+) misses on unseen seeds \([^;]*; (\d+) of them\s+miss on development seeds too\)",
                      (ROOT / "docs" / "sal.md").read_text())  # fmt: skip
    assert match, "docs/sal.md no longer counts the misses on unseen seeds"
    unseen = [c for _, _, _, c in ROWS if not c["unseen"].meets]
    assert (int(match[1]), int(match[2])) == (len(unseen), sum(not c["dev"].meets for c in unseen))


def test_readme_groups_of_batches_are_their_rows() -> None:
    """README.md's rows of batches (``--first`` … ``--last``) count those batches' tables and cells."""
    order = list(sb.groups())
    rows = re.findall(
        r"^\| (\d+) held-out tables [^|]*?\((\d+) table-directions; `--([a-z_]+)` … `--([a-z_]+)`[^|]*\) \| "
        r"(\d+) of (\d+) \| (\d+) of (\d+) \|$",
        (ROOT / "README.md").read_text(),
        re.MULTILINE,
    )
    assert len(rows) == 3
    covered: list[str] = []
    for tables, directions, first, last, dev_met, dev_n, un_met, un_n in rows:
        flags = order[order.index(first) : order.index(last) + 1]
        covered += flags
        cells = [c for g, _, _, c in ROWS if g in flags]
        assert int(tables) == len({t for g, t, _, _ in ROWS if g in flags})
        assert int(directions) == int(dev_n) == int(un_n) == len(cells)
        assert (int(dev_met), int(un_met)) == tuple(sum(c[s].meets for c in cells) for s in SEED_SETS)
    assert covered == order[1:]  # every held-out batch once, in order; the development set has its own row
