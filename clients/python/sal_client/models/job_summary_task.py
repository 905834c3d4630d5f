from enum import StrEnum


class JobSummaryTask(StrEnum):
    CLASSIFICATION = "classification"
    REGRESSION = "regression"

    def __str__(self) -> str:
        return str(self.value)
