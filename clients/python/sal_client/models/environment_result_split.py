from enum import StrEnum


class EnvironmentResultSplit(StrEnum):
    TEST = "test"
    TRAIN = "train"

    def __str__(self) -> str:
        return str(self.value)
