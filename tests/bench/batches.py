"""The held-out batches of real tables from the third on, as documented: each batch's module, its
tables' rows per training and test environment, covariates, which are classification, the constant
that pins each table's file, and (from the ninth on) the sha256 of the module as committed before any
fit. One record per batch: a new batch adds one here, and ``test_held_out_batches`` checks it as it
checks the others. No figure is recorded here: a test pinning a batch's measured figures would pin a
result rather than a definition (the figures are in docs/sal.md and docs/real-scoreboard.md)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType

from bench import real_dev as rd
from bench import (
    real_eighth,
    real_eleventh,
    real_fifteenth,
    real_fifth,
    real_fourteenth,
    real_fourth,
    real_ninth,
    real_seventh,
    real_sixteenth,
    real_sixth,
    real_tenth,
    real_third,
    real_thirteenth,
    real_twelfth,
)


@dataclass(frozen=True)
class Batch:
    """One held-out batch: ``bench.real_dev --<flag>`` runs ``getattr(module, flag.upper())``."""

    flag: str
    module: ModuleType
    sizes: dict[str, tuple[list[int], list[int]]]
    """Rows per training and per test environment, forward."""
    covariates: dict[str, int]
    classification: frozenset[str]
    pinned: dict[str, str]
    """Each table's ``bench.real_dev.Source`` constant in ``module``."""
    spec_sha256: str | None
    """sha256 of the module as committed before any fit (from the ninth batch on)."""

    @property
    def group(self) -> dict[str, Callable[[], rd.Dataset]]:
        """The batch's tables by name, as ``bench.real_dev`` runs them."""
        group: dict[str, Callable[[], rd.Dataset]] = getattr(self.module, self.flag.upper())
        return group

    @property
    def first(self) -> str:
        """The batch's first table."""
        return next(iter(self.sizes))


BATCHES = (
    Batch(
        flag="third",
        module=real_third,
        sizes={
            "gss_vocab": ([8116, 7808], [5274, 6162]),
            "twoyear": ([1425, 2021], [2212, 1105]),
            "rice_farms": ([114, 144, 222], [198, 132, 216]),
            "school93_98": ([1366, 1220, 1675], [1713, 1656, 1739]),
            "labor_supply": ([1064, 1064, 1064], [1064, 1064]),
            "chile": ([230, 374], [476, 623]),
            "wvs": ([1874, 1377], [1127, 1003]),
            "arrests": ([1369, 1099], [1270, 1488]),
            "smoking": ([426, 443], [591, 231]),
            "taxi": ([1644, 2036], [3142, 3178]),
        },
        covariates={
            "gss_vocab": 5,
            "twoyear": 17,
            "rice_farms": 18,
            "school93_98": 3,
            "labor_supply": 5,
            "chile": 7,
            "wvs": 4,
            "arrests": 6,
            "smoking": 24,
            "taxi": 15,
        },
        classification=frozenset(["arrests", "chile", "smoking", "taxi", "wvs"]),
        pinned={
            "gss_vocab": "GSS_VOCAB",
            "twoyear": "TWOYEAR",
            "rice_farms": "RICE_FARMS",
            "school93_98": "SCHOOL93_98",
            "labor_supply": "LABOR_SUPPLY",
            "chile": "CHILE",
            "wvs": "WVS",
            "arrests": "ARRESTS",
            "smoking": "SMOKING",
            "taxi": "TAXI",
        },
        spec_sha256=None,
    ),
    Batch(
        flag="fourth",
        module=real_fourth,
        sizes={
            "airfare": ([1149, 1149], [1149, 1149]),
            "spanish_firms": ([1476, 1476], [1476, 1476]),
            "portal_rodents": ([7582, 7340], [5952, 9802]),
            "soep_doctor_visits": ([3874, 3794, 3792], [3666, 4483]),
            "movies": ([6270, 7907], [12788, 10789]),
            "alcohol_employment": ([1994, 2609], [3126, 2093]),
            "tv16": ([7381, 8846], [13339, 8247]),
            "weather_rain": ([731, 731], [731, 731]),
            "mpls_stops": ([5242, 7935, 8336], [10708, 11417]),
            "nycflights": ([7765, 8334], [8303, 8333]),
        },
        covariates={
            "airfare": 4,
            "spanish_firms": 4,
            "portal_rodents": 14,
            "soep_doctor_visits": 9,
            "movies": 9,
            "alcohol_employment": 23,
            "tv16": 17,
            "weather_rain": 17,
            "mpls_stops": 11,
            "nycflights": 21,
        },
        classification=frozenset(["alcohol_employment", "mpls_stops", "nycflights", "tv16", "weather_rain"]),
        pinned={
            "airfare": "AIRFARE",
            "spanish_firms": "SNMESP",
            "portal_rodents": "RODENTS",
            "soep_doctor_visits": "RWM5YR",
            "movies": "MOVIES",
            "alcohol_employment": "ALCOHOL",
            "tv16": "TV16",
            "weather_rain": "WEATHER",
            "mpls_stops": "MPLS_STOPS",
            "nycflights": "NYCFLIGHTS",
        },
        spec_sha256=None,
    ),
    Batch(
        flag="fifth",
        module=real_fifth,
        sizes={
            "county_murders": ([8788, 8788], [8786, 10984]),
            "anes_gop_thermometer": ([6195, 7408], [5681, 8640]),
            "nesarc_drinks": ([5453, 6046], [8916, 6293]),
            "mlb_teams": ([464, 480], [714, 882]),
            "abortion_gonorrhea": ([4461, 4445], [4480, 4511]),
            "monica_deaths": ([1573, 1517], [1419, 1858]),
            "legislator_replies": ([2951, 1137], [1166, 339]),
            "innsbruck_rain": ([1223, 1279], [1275, 1194]),
            "suicide_china": ([749, 956], [442, 424]),
            "rotterdam_recurrence": ([863, 694], [702, 723]),
        },
        covariates={
            "county_murders": 10,
            "anes_gop_thermometer": 9,
            "nesarc_drinks": 15,
            "mlb_teams": 13,
            "abortion_gonorrhea": 15,
            "monica_deaths": 18,
            "legislator_replies": 11,
            "innsbruck_rain": 3,
            "suicide_china": 15,
            "rotterdam_recurrence": 10,
        },
        classification=frozenset(
            ["innsbruck_rain", "legislator_replies", "monica_deaths", "rotterdam_recurrence", "suicide_china"]
        ),
        pinned={
            "county_murders": "COUNTY_MURDERS",
            "anes_gop_thermometer": "ANES_THERMS",
            "nesarc_drinks": "NESARC",
            "mlb_teams": "MLB_TEAMS",
            "abortion_gonorrhea": "ABORTION",
            "monica_deaths": "MONICA",
            "legislator_replies": "BLACK_POLITICIANS",
            "innsbruck_rain": "RAIN_IBK",
            "suicide_china": "SUICIDE_CHINA",
            "rotterdam_recurrence": "ROTTERDAM",
        },
        spec_sha256=None,
    ),
    Batch(
        flag="sixth",
        module=real_sixth,
        sizes={
            "forbes_market_value": ([748, 316], [530, 401]),
            "wvs_abortion": ([1924, 2621], [2245, 2069]),
            "card_wages": ([612, 768], [1224, 352]),
            "scorecard_earnings": ([919, 1215], [1845, 1005]),
            "nox_concentration": ([1939, 1868], [2153, 2128]),
            "flchain_deaths": ([1008, 3023], [1214, 1279]),
            "ces11_abortion": ([687, 652], [577, 315]),
            "dengue_presence": ([446, 626], [512, 402]),
            "aids2_deaths": ([1780, 588], [226, 249]),
            "gss_abortion": ([10438, 8344], [8985, 8651]),
        },
        covariates={
            "forbes_market_value": 5,
            "wvs_abortion": 11,
            "card_wages": 10,
            "scorecard_earnings": 4,
            "nox_concentration": 3,
            "flchain_deaths": 6,
            "ces11_abortion": 10,
            "dengue_presence": 8,
            "aids2_deaths": 7,
            "gss_abortion": 13,
        },
        classification=frozenset(
            ["aids2_deaths", "ces11_abortion", "dengue_presence", "flchain_deaths", "gss_abortion"]
        ),
        pinned={
            "forbes_market_value": "FORBES",
            "wvs_abortion": "WVS_ABORTION",
            "card_wages": "CARD",
            "scorecard_earnings": "SCORECARD",
            "nox_concentration": "NOX",
            "flchain_deaths": "FLCHAIN",
            "ces11_abortion": "CES11",
            "dengue_presence": "DENGUE",
            "aids2_deaths": "AIDS2",
            "gss_abortion": "GSS_ABORTION",
        },
        spec_sha256=None,
    ),
    Batch(
        flag="seventh",
        module=real_seventh,
        sizes={
            "htv_wages": ([260, 458], [304, 208]),
            "michigan_math": ([1100, 1100], [1100, 550]),
            "empluk_employment": ([358, 280], [280, 113]),
            "auto_mpg": ([84, 96], [98, 114]),
            "grinnell_prices": ([228, 216], [170, 297]),
            "oj_purchase": ([157, 222], [196, 139, 356]),
            "heating_gas": ([260, 361], [177, 102]),
            "mgus2_deaths": ([315, 413], [332, 278]),
            "police_injury": ([800, 254, 498], [1001, 426]),
            "gsoep_gymnasium": ([116, 181], [98, 263]),
        },
        covariates={
            "htv_wages": 9,
            "michigan_math": 4,
            "empluk_employment": 11,
            "auto_mpg": 7,
            "grinnell_prices": 4,
            "oj_purchase": 7,
            "heating_gas": 13,
            "mgus2_deaths": 5,
            "police_injury": 14,
            "gsoep_gymnasium": 10,
        },
        classification=frozenset(
            ["gsoep_gymnasium", "heating_gas", "mgus2_deaths", "oj_purchase", "police_injury"]
        ),
        pinned={
            "htv_wages": "HTV",
            "michigan_math": "MATHPNL",
            "empluk_employment": "EMPLUK",
            "auto_mpg": "AUTO",
            "grinnell_prices": "GRINNELL",
            "oj_purchase": "OJ",
            "heating_gas": "HEATING",
            "mgus2_deaths": "MGUS2",
            "police_injury": "POLICE",
            "gsoep_gymnasium": "GSOEP",
        },
        spec_sha256=None,
    ),
    Batch(
        flag="eighth",
        module=real_eighth,
        sizes={
            "driving_fatalities": ([288, 288], [288, 336]),
            "gss_fertility": ([329, 295], [328, 177]),
            "swedish_spending": ([530, 530], [530, 795]),
            "oecd_gasoline": ([90, 90], [90, 72]),
            "midwest_poverty": ([102, 92], [83, 88, 72]),
            "anes_turnout": ([256, 382], [395, 265]),
            "norway_eu": ([451, 280], [153, 132, 105, 71]),
            "liver_transplant": ([155, 150], [193, 299]),
            "wilms_relapse": ([1572, 1052], [944, 460]),
            "yrbss_active": ([2853, 2611], [2676, 3041]),
        },
        covariates={
            "driving_fatalities": 10,
            "gss_fertility": 11,
            "swedish_spending": 2,
            "oecd_gasoline": 3,
            "midwest_poverty": 8,
            "anes_turnout": 5,
            "norway_eu": 10,
            "liver_transplant": 5,
            "wilms_relapse": 4,
            "yrbss_active": 6,
        },
        classification=frozenset(
            ["anes_turnout", "liver_transplant", "norway_eu", "wilms_relapse", "yrbss_active"]
        ),
        pinned={
            "driving_fatalities": "DRIVING",
            "gss_fertility": "FERTIL1",
            "swedish_spending": "MUNICIPALITIES",
            "oecd_gasoline": "GASOLINE",
            "midwest_poverty": "MIDWEST",
            "anes_turnout": "ANES84",
            "norway_eu": "ESS10NO",
            "liver_transplant": "TRANSPLANT",
            "wilms_relapse": "NWTCO",
            "yrbss_active": "YRBSS",
        },
        spec_sha256=None,
    ),
    Batch(
        flag="ninth",
        module=real_ninth,
        sizes={
            "penn_saving": ([875, 750], [875, 750]),
            "house_ada_scores": ([3854, 3649], [3227, 2836]),
            "dutch_language": ([775, 803], [617, 92]),
            "scottish_attainment": ([290, 257], [253, 250, 234, 233]),
            "cherry_blossom": ([1642, 2166], [3689, 273, 211]),
            "email_spam": ([1300, 1326], [581, 714]),
            "us_aid": ([230, 376], [446, 329]),
            "botswana_contraception": ([1805, 980], [437, 1062]),
            "firm_patents": ([1420, 1494], [1415, 1864]),
            "pneumonia_hospital": ([517, 868], [1396, 689]),
        },
        covariates={
            "penn_saving": 4,
            "house_ada_scores": 4,
            "dutch_language": 8,
            "scottish_attainment": 5,
            "cherry_blossom": 3,
            "email_spam": 17,
            "us_aid": 8,
            "botswana_contraception": 9,
            "firm_patents": 11,
            "pneumonia_hospital": 12,
        },
        classification=frozenset(
            ["botswana_contraception", "email_spam", "firm_patents", "pneumonia_hospital", "us_aid"]
        ),
        pinned={
            "penn_saving": "SUMHES",
            "house_ada_scores": "CLOSE_ELECTIONS",
            "dutch_language": "BDF",
            "scottish_attainment": "SCOTS_SEC",
            "cherry_blossom": "TEN_MILE_RACE",
            "email_spam": "EMAIL",
            "us_aid": "USFAHR",
            "botswana_contraception": "FERTIL2",
            "firm_patents": "INST_INNOVATION",
            "pneumonia_hospital": "PNEUMON",
        },
        spec_sha256="a7938d10a93175063fa1528e4155e41daa0fa5d1edb05675876db48cafd2f2a3",  # 4f84f27
    ),
    Batch(
        flag="tenth",
        module=real_tenth,
        sizes={
            "hsb_math": ([2224, 1418], [1168, 2375]),
            "chicago_math": ([1476, 1450], [1578, 2726]),
            "nhefs_weight": ([347, 446], [551, 132]),
            "uk_immigration": ([606, 401], [199, 248]),
            "nc_birthweight": ([885, 325], [152, 47]),
            "college_distance": ([2870, 926], [765, 178]),
            "covid_positive": ([2366, 3804], [4106, 4947]),
            "guatemala_immunization": ([626, 423], [707, 403]),
            "telco_churn": ([1544, 1522], [2365, 1612]),
            "medicaid_visits": ([326, 159], [365, 146]),
        },
        covariates={
            "hsb_math": 4,
            "chicago_math": 8,
            "nhefs_weight": 12,
            "uk_immigration": 6,
            "nc_birthweight": 7,
            "college_distance": 12,
            "covid_positive": 8,
            "guatemala_immunization": 12,
            "telco_churn": 19,
            "medicaid_visits": 11,
        },
        classification=frozenset(
            ["college_distance", "covid_positive", "guatemala_immunization", "medicaid_visits", "telco_churn"]
        ),
        pinned={
            "hsb_math": "HSB82",
            "chicago_math": "EGSINGLE",
            "nhefs_weight": "NHEFS",
            "uk_immigration": "ESS9GB",
            "nc_birthweight": "NC_BIRTHS",
            "college_distance": "COLLEGE_DISTANCE",
            "covid_positive": "COVID_TESTING",
            "guatemala_immunization": "GU_IMMUN",
            "telco_churn": "WA_CHURN",
            "medicaid_visits": "MEDICAID",
        },
        spec_sha256="0f591a121b7849bf5c57da5d02de043ef158fd67b4d4ea8ec1d2a335c4fc636a",  # 3b97866
    ),
    Batch(
        flag="eleventh",
        module=real_eleventh,
        sizes={
            "hawks_weight": ([201, 168], [231, 291]),
            "mice_weight": ([97, 193], [192, 97, 197]),
            "beauty_wage": ([228, 463], [349, 220]),
            "personal_freedom": ([232, 190], [348, 148]),
            "daily_births": ([1826, 1826], [1826, 1827]),
            "hpc_fast": ([692, 896], [718, 923]),
            "verbal_aggression": ([1896, 1896], [1896, 1896]),
            "crime_arrest": ([615, 1078], [439, 593]),
            "acs_employment": ([1262, 162], [73, 108]),
            "wife_works": ([962, 1021], [85, 1314]),
        },
        covariates={
            "hawks_weight": 7,
            "mice_weight": 5,
            "beauty_wage": 10,
            "personal_freedom": 6,
            "daily_births": 18,
            "hpc_fast": 17,
            "verbal_aggression": 5,
            "crime_arrest": 7,
            "acs_employment": 8,
            "wife_works": 10,
        },
        classification=frozenset(
            ["acs_employment", "crime_arrest", "hpc_fast", "verbal_aggression", "wife_works"]
        ),
        pinned={
            "hawks_weight": "HAWKS",
            "mice_weight": "MICE_WEIGHTS",
            "beauty_wage": "BEAUTY",
            "personal_freedom": "HFI",
            "daily_births": "BIRTHS",
            "hpc_fast": "HPC",
            "verbal_aggression": "VERB_AGG",
            "crime_arrest": "CRIME1",
            "acs_employment": "ACS12",
            "wife_works": "WORKING_HOURS",
        },
        spec_sha256="5652c60d20b4ea7c47c15dcbaf758f8f840d22af888a49a3cff98b178f8d88d8",  # ad2d7b9
    ),
    Batch(
        flag="twelfth",
        module=real_twelfth,
        sizes={
            "catholic_math": ([5752, 769], [525, 384]),
            "social_attitudes": ([264, 264], [264, 264]),
            "economists_salary": ([103, 96], [87, 80]),
            "chicago_ridership": ([1440, 1461], [1461, 1336]),
            "batting_runs": ([1120, 1774], [2480, 2249]),
            "mothers_work": ([1568, 2232], [25389, 811]),
            "recidivism": ([305, 336], [348, 456]),
            "kershaw_swing": ([976, 963], [897, 566]),
            "tipi_voted": ([513, 436], [135, 136, 157]),
            "jobs_employed": ([175, 168, 217], [97, 93, 84]),
        },
        covariates={
            "catholic_math": 7,
            "social_attitudes": 10,
            "economists_salary": 7,
            "chicago_ridership": 18,
            "batting_runs": 12,
            "mothers_work": 4,
            "recidivism": 14,
            "kershaw_swing": 15,
            "tipi_voted": 21,
            "jobs_employed": 17,
        },
        classification=frozenset(
            ["jobs_employed", "kershaw_swing", "mothers_work", "recidivism", "tipi_voted"]
        ),
        pinned={
            "catholic_math": "CATHOLIC",
            "social_attitudes": "SOCATT",
            "economists_salary": "BIG9_SALARY",
            "chicago_ridership": "CHICAGO",
            "batting_runs": "BASEBALL",
            "mothers_work": "FERTILITY2",
            "recidivism": "RECID",
            "kershaw_swing": "KERSHAW",
            "tipi_voted": "TIPI",
            "jobs_employed": "JOBS",
        },
        spec_sha256="a02f13e233714f3cdbecfb2d354674cb2326c2b13dc95b005edb6606bdddb51f",  # 57024ce
    ),
    Batch(
        flag="thirteenth",
        module=real_thirteenth,
        sizes={
            "gestation_weight": ([516, 99], [453, 92]),
            "prison_crime": ([204, 153], [153, 204]),
            "movielens_rating": ([17259, 31585], [23312, 27838]),
            "sat_quantitative": ([142, 269], [137, 139]),
            "lecture_rating": ([9528, 8574], [8097, 6725]),
            "opt_preterm": ([202, 229], [191, 103]),
            "nhis_insured": ([7535, 7527], [1860, 1868]),
            "colon_death": ([161, 144], [135, 154]),
            "bird_strikes": ([4740, 3416], [3487, 2384]),
            "mortgages_home": ([53713, 64296], [76339, 19484]),
        },
        covariates={
            "gestation_weight": 12,
            "prison_crime": 8,
            "movielens_rating": 20,
            "sat_quantitative": 3,
            "lecture_rating": 9,
            "opt_preterm": 17,
            "nhis_insured": 6,
            "colon_death": 9,
            "bird_strikes": 14,
            "mortgages_home": 6,
        },
        classification=frozenset(
            ["bird_strikes", "colon_death", "mortgages_home", "nhis_insured", "opt_preterm"]
        ),
        pinned={
            "gestation_weight": "GESTATION",
            "prison_crime": "PRISON",
            "movielens_rating": "MOVIELENS",
            "sat_quantitative": "SAT_ACT",
            "lecture_rating": "INST_EVAL",
            "opt_preterm": "OPT",
            "nhis_insured": "MM_NHIS",
            "colon_death": "COLON",
            "bird_strikes": "BIRDS",
            "mortgages_home": "MORTGAGES",
        },
        spec_sha256="04868f8d6ffc1a0e78401e009c950ce070569fbe5e5e29d6918fcf2e5d9f895f",  # cabd197
    ),
    Batch(
        flag="fourteenth",
        module=real_fourteenth,
        sizes={
            "college_gpa": ([2112, 1717], [165, 143]),
            "cps_wage": ([118, 132], [187, 89]),
            "liver_alt": ([152, 148], [148, 158]),
            "pine_height": ([255, 167], [227, 137]),
            "fuel_economy": ([355, 285], [327, 72]),
            "environment_spending": ([386, 336], [668, 298]),
            "respiratory_status": ([116, 112], [108, 108]),
            "tobacco_smokers": ([215, 425], [150, 279]),
            "bangladesh_contraception": ([578, 465], [413, 478]),
            "rice_insurance": ([364, 342], [349, 323]),
        },
        covariates={
            "college_gpa": 6,
            "cps_wage": 17,
            "liver_alt": 4,
            "pine_height": 6,
            "fuel_economy": 11,
            "environment_spending": 8,
            "respiratory_status": 4,
            "tobacco_smokers": 6,
            "bangladesh_contraception": 5,
            "rice_insurance": 8,
        },
        classification=frozenset(
            [
                "bangladesh_contraception",
                "environment_spending",
                "respiratory_status",
                "rice_insurance",
                "tobacco_smokers",
            ]
        ),
        pinned={
            "college_gpa": "GPA2",
            "cps_wage": "WAGE1",
            "liver_alt": "LIVER",
            "pine_height": "PINES",
            "fuel_economy": "EPA2012",
            "environment_spending": "GSS_SPENDING",
            "respiratory_status": "RESPIRATORY",
            "tobacco_smokers": "TOBACCO",
            "bangladesh_contraception": "CONTRACEPTION",
            "rice_insurance": "SOCIAL_INSURE",
        },
        spec_sha256="a69e9bbce553b5296b51bbb43894e3c0c78c296dd849602360a7fb0bcd854957",  # fdd9422
    ),
    Batch(
        flag="fifteenth",
        module=real_fifteenth,
        sizes={
            "birth_weight": ([438, 255], [97, 104]),
            "pig_weight": ([77, 87, 87], [88, 87, 88]),
            "cardiac_stay": ([883, 963], [697, 1046]),
            "teacher_salary": ([214, 351], [457, 826]),
            "sleep_time": ([161, 239], [121, 185]),
            "hiv_results": ([554, 486], [793, 992]),
            "voter_turnout": ([221, 279], [440, 560]),
            "eco_apples": ([130, 184], [229, 117]),
            "personality_sex": ([198, 250], [346, 364]),
            "market_direction": ([255, 261], [260, 313]),
        },
        covariates={
            "birth_weight": 6,
            "pig_weight": 2,
            "cardiac_stay": 4,
            "teacher_salary": 6,
            "sleep_time": 10,
            "hiv_results": 5,
            "voter_turnout": 3,
            "eco_apples": 11,
            "personality_sex": 26,
            "market_direction": 5,
        },
        classification=frozenset(
            [
                "eco_apples",
                "hiv_results",
                "market_direction",
                "personality_sex",
                "voter_turnout",
            ]
        ),
        pinned={
            "birth_weight": "BIRTHS14",
            "pig_weight": "DIETOX",
            "cardiac_stay": "AZPRO",
            "teacher_salary": "ELEM94_95",
            "sleep_time": "SLEEP75",
            "hiv_results": "THORNTON_HIV",
            "voter_turnout": "VOTEINCOME",
            "eco_apples": "APPLE",
            "personality_sex": "BFI",
            "market_direction": "WEEKLY",
        },
        spec_sha256="f3845e4c2d47597cc6c72e4071d6aecbc086d94012f96eebbf66c1491b673144",  # 6e0f513
    ),
    Batch(
        flag="sixteenth",
        module=real_sixteenth,
        sizes={
            "coursework": ([231, 393], [764, 135]),
            "inspection_score": ([3615, 5269], [6361, 11933]),
            "commute_time": ([500, 500], [500, 500]),
            "treatment_stay": ([198, 202], [91, 84]),
            "labour_vote": ([161, 155], [120, 82]),
            "train_route": ([727, 728], [744, 730]),
            "soup_test": ([269, 270], [360, 360]),
            "political_information": ([640, 514], [399, 237]),
            "marijuana_legal": ([72, 316], [155, 90]),
            "ketchup_choice": ([689, 686], [740, 683]),
        },
        covariates={
            "coursework": 2,
            "inspection_score": 2,
            "commute_time": 1,
            "treatment_stay": 6,
            "labour_vote": 5,
            "train_route": 4,
            "soup_test": 9,
            "political_information": 6,
            "marijuana_legal": 3,
            "ketchup_choice": 12,
        },
        classification=frozenset(
            [
                "ketchup_choice",
                "marijuana_legal",
                "political_information",
                "soup_test",
                "train_route",
            ]
        ),
        pinned={
            "coursework": "GCSEMV",
            "inspection_score": "RESTAURANT_INSPECTIONS",
            "commute_time": "METRO_COMMUTES",
            "treatment_stay": "UIS",
            "labour_vote": "COMMONS",
            "train_route": "TRAIN",
            "soup_test": "SOUP",
            "political_information": "POLITICAL_INFORMATION",
            "marijuana_legal": "GSS2010",
            "ketchup_choice": "CATSUP",
        },
        spec_sha256="35aabf11d1d74d8c1bb07198ed5821cde7529cd0595441554ec12c558b8d8c18",  # 9bd323f
    ),
)
