from enum import StrEnum


class JobSummaryDevice(StrEnum):
    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"

    def __str__(self) -> str:
        return str(self.value)
