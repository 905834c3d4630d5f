from enum import StrEnum


class JobCreateTaskType0(StrEnum):
    CLASSIFICATION = "classification"
    REGRESSION = "regression"

    def __str__(self) -> str:
        return str(self.value)
