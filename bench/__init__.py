"""Benchmarks: `make bench` (python -m bench) prints speed and memory figures measured here."""
