from enum import StrEnum


class GetSweepReportFigures(StrEnum):
    PNG = "png"
    SVG = "svg"

    def __str__(self) -> str:
        return str(self.value)
