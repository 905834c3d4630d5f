"""The dataset domain: tables (CSV, Parquet and JSON uploads, split by environment) and the
service that stores them content-addressed."""
