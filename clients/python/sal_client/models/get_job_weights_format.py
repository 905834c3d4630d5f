from enum import StrEnum


class GetJobWeightsFormat(StrEnum):
    JSON = "json"
    SAFETENSORS = "safetensors"

    def __str__(self) -> str:
        return str(self.value)
