from enum import StrEnum


class ListJobsSort(StrEnum):
    CREATED_AT = "created_at"
    DURATION_S = "duration_s"
    MEAN_ERROR = "mean_error"
    NAME = "name"
    STD_ERROR = "std_error"
    VALUE_0 = "-created_at"
    VALUE_11 = "-duration_s"
    VALUE_3 = "-name"
    VALUE_5 = "-mean_error"
    VALUE_7 = "-std_error"
    VALUE_9 = "-worst_error"
    WORST_ERROR = "worst_error"

    def __str__(self) -> str:
        return str(self.value)
