from enum import StrEnum


class ModelConfigKind(StrEnum):
    LINEAR = "linear"
    MLP = "mlp"

    def __str__(self) -> str:
        return str(self.value)
