"""The examples in the docstrings of the pure leaderboard modules are run and must hold."""

import doctest

import pytest

from leaderboard import charts, ranking, significance


@pytest.mark.parametrize("module", [charts, ranking, significance], ids=lambda m: m.__name__)
def test_docstring_examples(module):
    result = doctest.testmod(module)
    assert result.attempted > 0 and result.failed == 0
