"""Tablelens: chat with your reports; every number cites the cells it came from."""

__version__ = "0.1.0"
