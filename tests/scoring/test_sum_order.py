"""One order for every float sum of the scorer: left to right, as the C steps add
(scoring.results.sum_in_order). Python 3.12's sum() compensates, so a last bit of BLANC's or
B³'s counts with accommodated sets would otherwise depend on the Python and differ from C."""

import math

from scoring.results import sum_in_order


def test_floats_are_added_left_to_right_with_a_rounding_per_step():
    values = [1e16, 1.0, 1.0]
    # 1e16 + 1 rounds back to 1e16 (ties to even), twice; an exact or compensated sum keeps both
    assert sum_in_order(values) == 1e16
    assert math.fsum(values) == 1e16 + 2
    assert sum_in_order(reversed(values)) == 1e16 + 2


def test_an_empty_sum_is_a_float_zero():
    total = sum_in_order([])
    assert total == 0.0 and isinstance(total, float)


def test_the_order_is_that_of_the_iterable():
    values = [0.1] * 10
    total = 0.0
    for value in values:
        total += value
    assert sum_in_order(iter(values)) == total == 0.9999999999999999
