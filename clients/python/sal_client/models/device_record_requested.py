from enum import StrEnum


class DeviceRecordRequested(StrEnum):
    AUTO = "auto"
    CPU = "cpu"
    CUDA = "cuda"

    def __str__(self) -> str:
        return str(self.value)
