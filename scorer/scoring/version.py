"""The scorer's version, recorded with every score row (change it when any number can change)."""

__version__ = "0.1.0"
