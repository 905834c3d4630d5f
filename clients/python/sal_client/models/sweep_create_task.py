from enum import StrEnum


class SweepCreateTask(StrEnum):
    CLASSIFICATION = "classification"
    REGRESSION = "regression"

    def __str__(self) -> str:
        return str(self.value)
