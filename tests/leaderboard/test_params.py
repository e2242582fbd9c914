"""Board query parameters."""

import pytest

from leaderboard.params import BoardParams, board_params
from leaderboard.selectors import BoardQueryError


def test_defaults_and_values():
    assert board_params({}) == BoardParams()
    params = board_params(
        {
            "metric": "lea",
            "mode": "only_split_antecedent",
            "sort": "ami.f1",
            "order": "asc",
            "runs": "all",
            "live": "1",
        }
    )
    assert params == BoardParams(
        metric="lea",
        mode="only_split_antecedent",
        sort="ami.f1",
        descending=False,
        runs=True,
        live=True,
    )


@pytest.mark.parametrize(
    "query, message", [({"order": "up"}, "unknown order"), ({"runs": "some"}, "unknown runs")]
)
def test_unknown_values_are_refused_with_the_valid_ones(query, message):
    with pytest.raises(BoardQueryError, match=message):
        board_params(query)
