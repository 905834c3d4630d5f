from enum import StrEnum


class GetSweepReportFormat(StrEnum):
    HTML = "html"
    JSON = "json"
    MARKDOWN = "markdown"

    def __str__(self) -> str:
        return str(self.value)
