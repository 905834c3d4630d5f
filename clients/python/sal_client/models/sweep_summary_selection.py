from enum import StrEnum


class SweepSummarySelection(StrEnum):
    LEAVE_ONE_ENV_OUT = "leave_one_env_out"
    ORACLE = "oracle"
    TRAIN_ENV_VALIDATION = "train_env_validation"
    TRAIN_ENV_WORST = "train_env_worst"

    def __str__(self) -> str:
        return str(self.value)
