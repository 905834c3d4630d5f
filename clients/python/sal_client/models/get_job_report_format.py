from enum import StrEnum


class GetJobReportFormat(StrEnum):
    HTML = "html"
    JSON = "json"
    MARKDOWN = "markdown"

    def __str__(self) -> str:
        return str(self.value)
