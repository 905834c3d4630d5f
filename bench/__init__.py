"""Benchmarks that print ratios measured in one run: ``python -m bench.speed``, ``python -m bench.paper``."""
