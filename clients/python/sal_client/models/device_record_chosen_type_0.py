from enum import StrEnum


class DeviceRecordChosenType0(StrEnum):
    CPU = "cpu"
    CUDA = "cuda"

    def __str__(self) -> str:
        return str(self.value)
