"""Benchmarks of the scorer: ``python -m bench`` (``make bench``). See bench/__main__.py."""
