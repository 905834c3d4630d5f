from enum import StrEnum


class ModelConfigActivationType0(StrEnum):
    GELU = "gelu"
    RELU = "relu"
    TANH = "tanh"

    def __str__(self) -> str:
        return str(self.value)
