from enum import StrEnum


class SweepCreateTaskType0(StrEnum):
    CLASSIFICATION = "classification"
    REGRESSION = "regression"

    def __str__(self) -> str:
        return str(self.value)
