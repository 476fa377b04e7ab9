"""One text format per kind of figure."""

import math

import numpy as np
import pandas as pd

from uno_rl.eval import formats


def test_rates_points_and_differences():
    assert formats.rate(0.5432) == "54.3%" and formats.rate(1.0) == "100.0%"
    assert formats.rate_difference(0.012) == "+1.2 pp"
    assert formats.rate_difference(-0.0349) == "-3.5 pp"
    assert formats.points(1.234) == "+1.23" and formats.points(-0.5) == "-0.50"
    for missing in (None, math.nan, np.nan, pd.NA):
        assert formats.rate(missing) == formats.points(missing) == "-"


def test_intervals():
    assert formats.with_interval(0.543, 0.531, 0.554) == "54.3% [53.1%, 55.4%]"
    assert formats.with_interval(1.23, 1.1, 1.36, formats.points) == "+1.23 [+1.10, +1.36]"
    assert formats.with_interval(0.5, math.nan, math.nan) == "50.0%"
    assert formats.with_interval(math.nan, 0.1, 0.2) == "-"


def test_p_values_never_print_zero():
    assert formats.p_value(0.3123) == "p = 0.31"
    assert formats.p_value(0.0042) == "p = 0.004"
    assert formats.p_value(3.21e-12) == "p = 3.2e-12"
    assert formats.p_value(2e-299) == "p = 2.0e-299"
    assert formats.p_value(0.0) == "p < 1e-300"
    assert formats.p_value(0.0, -13591.5) == "p < 1e-300"
    assert formats.p_value(5e-310, math.log10(5e-310)) == "p < 1e-300"  # subnormal
    assert formats.p_value(math.nan, -4.0) == "p = 1.0e-04"
    assert formats.p_value(math.nan) == "p = -"
    for p in (0.0, 1e-320, 1e-200, 0.5):
        assert formats.p_value(p) != "p = 0" and "= 0.0e" not in formats.p_value(p)
