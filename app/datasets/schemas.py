"""The dataset domain's request and response bodies (/datasets): one pydantic model per role.
Field names are public API."""

from __future__ import annotations

import datetime as dt

from pydantic import BaseModel, ConfigDict, Field


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class EnvironmentData(Strict):
    name: str = Field(min_length=1, max_length=255)
    X: list[list[float]] = Field(description="Rows of covariates, each with one value per feature.")
    y: list[float] = Field(description="One label per row.")


class DatasetCreate(Strict):
    """The JSON form of an upload."""

    name: str = Field(default="dataset", min_length=1, max_length=255)
    feature_names: list[str] = Field(min_length=1)
    target: str = Field(default="y", min_length=1, max_length=255)
    environments: list[EnvironmentData] = Field(min_length=1)


class DatasetUpload(BaseModel):
    """The multipart form of an upload (documented in OpenAPI; parsed by hand)."""

    file: bytes = Field(json_schema_extra={"format": "binary"}, description="A CSV or Parquet file.")
    target: str = Field(description="Name of the label column.")
    environment: str = Field(description="Name of the column that says which environment a row is from.")
    features: str | None = Field(
        default=None,
        description="Comma-separated feature columns; default: every other column of numbers, "
        "true/false, or text of 2 to 32 values.",
    )
    name: str | None = Field(default=None, description="A name for the dataset; default: the file name.")


class DatasetEnvironment(BaseModel):
    name: str
    n_rows: int


class DatasetPublic(BaseModel):
    id: str
    name: str
    sha256: str
    n_rows: int
    feature_names: list[str]
    target: str
    environments: list[DatasetEnvironment]
    created_at: dt.datetime
    text_features: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Each text column one-hot encoded: its values, sorted; the first is the reference "
        "(no feature of its own), each other value v the feature '<column>=v'. Predict rows may give "
        "the column's value instead of its features.",
    )
    missing_features: dict[str, float | None] = Field(
        default_factory=dict,
        description="Each column with missing cells, which has a feature '<column> is missing' (1.0 on "
        "those rows): for a numeric column, the value its missing cells hold (the mean of its present "
        "cells); null for a text column (its rows have no value indicator). Predict rows may give the "
        "column as null.",
    )
    target_labels: list[str] | None = Field(
        default=None,
        description="A label target's two values, text or two whole numbers other than 0 and 1 (such as 1 "
        "and 2): the first read as 0, the second as 1.",
    )
    warnings: list[str] = Field(
        default_factory=list,
        description="On an upload's answer: what was decided for you (a text column left out, missing "
        "cells filled, rows without a target left out, a name not used).",
    )


class DatasetSummary(BaseModel):
    """A dataset as GET /datasets lists it, under 1 KB however wide: its feature names and
    environments are on GET /datasets/{id}."""

    id: str
    name: str
    sha256: str
    n_rows: int
    n_features: int
    n_environments: int
    target: str
    created_at: dt.datetime


class DatasetsPublic(BaseModel):
    items: list[DatasetSummary]
    next_cursor: str | None


class UploadCreate(Strict):
    """Open a resumable upload (``POST /datasets/uploads``): the file's size, and optionally its
    digest, checked before it is parsed."""

    size: int = Field(ge=1, description="The file's size in bytes; the upload is complete at this offset.")
    sha256: str | None = Field(
        default=None,
        pattern="^[0-9a-fA-F]{64}$",
        description="The whole file's SHA-256 (hex); a commit whose bytes differ is refused and stores nothing.",
    )
    filename: str | None = Field(
        default=None, max_length=255, description="The file's name: the dataset's default name."
    )


class UploadPublic(BaseModel):
    """A resumable upload: ``offset`` bytes of ``size`` received; the next part starts at ``offset``."""

    id: str
    size: int
    offset: int
    sha256: str | None
    filename: str | None
    created_at: dt.datetime
    expires_at: dt.datetime = Field(description="Unless appended to before then, the upload is removed.")
    dataset_id: str | None = Field(
        default=None,
        description="Once committed: the dataset (the bytes are gone; a repeated commit returns it).",
    )


class UploadCommit(Strict):
    """How to read the complete file: the fields of ``POST /datasets``' multipart form."""

    target: str = Field(min_length=1, description="Name of the label column.")
    environment: str = Field(
        min_length=1, description="Name of the column that says which environment a row is from."
    )
    features: list[str] | None = Field(
        default=None, description="Feature columns; default: every other numeric column."
    )
    name: str | None = Field(default=None, description="A name for the dataset; default: the file name.")
