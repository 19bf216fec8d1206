"""The experiment's statistics against published values (no SciPy in the project to compare with)."""

from __future__ import annotations

import math

import pytest

from toolkit.errors import InputError
from toolkit.experiment.stats import fisher_exact, newcombe, wilson

# Newcombe RG (1998), Two-sided confidence intervals for the single proportion: comparison of seven
# methods. Statistics in Medicine 17:857-872, Table I, method 3 (score interval without continuity correction).
WILSON_1998 = [
    ((81, 263), (0.2553, 0.3662)),
    ((15, 148), (0.0624, 0.1605)),
    ((0, 20), (0.0, 0.1611)),
    ((1, 29), (0.0061, 0.1718)),
    ((29, 29), (0.8830, 1.0)),
]

# Newcombe RG (1998), Interval estimation for the difference between independent proportions: comparison
# of eleven methods. Statistics in Medicine 17:873-890, Table II, method 10 (hybrid score).
NEWCOMBE_1998 = [
    ((56, 70, 48, 80), (0.0524, 0.3339)),
    ((9, 10, 3, 10), (0.1705, 0.8090)),
    ((5, 56, 0, 29), (-0.0381, 0.1926)),
    ((0, 10, 0, 20), (-0.1611, 0.2775)),
    ((0, 10, 0, 10), (-0.2775, 0.2775)),
    ((10, 10, 0, 20), (0.6791, 1.0)),
    ((10, 10, 0, 10), (0.6075, 1.0)),
]


@pytest.mark.parametrize(("counts", "published"), WILSON_1998)
def test_wilson_reproduces_newcombe_table_i(counts, published):
    low, high = wilson(*counts)
    assert (round(low, 4), round(high, 4)) == published


def test_wilson_bounds_are_exact_at_the_ends():
    assert wilson(0, 5)[0] == 0.0 and wilson(5, 5)[1] == 1.0
    low, _ = wilson(5, 5)
    assert round(low, 4) == round(1 - wilson(0, 5)[1], 4)  # symmetric
    assert all(math.isnan(x) for x in wilson(0, 0))


def test_wilson_narrows_with_more_trials():
    assert wilson(50, 100)[1] - wilson(50, 100)[0] < wilson(5, 10)[1] - wilson(5, 10)[0]


@pytest.mark.parametrize(("counts", "published"), NEWCOMBE_1998)
def test_newcombe_reproduces_table_ii_method_10(counts, published):
    low, high = newcombe(*counts)
    assert (round(low, 4), round(high, 4)) == published


def test_newcombe_is_antisymmetric_and_empty_side_is_nan():
    low, high = newcombe(9, 10, 3, 10)
    low2, high2 = newcombe(3, 10, 9, 10)
    assert (low2, high2) == pytest.approx((-high, -low))
    assert all(math.isnan(x) for x in newcombe(1, 2, 0, 0))


def test_fisher_tea_tasting():
    """Fisher (1935): the lady guesses 3 of the 4 milk-first cups; two-sided p = 34/70."""
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(0.4857, abs=5e-5)
    assert fisher_exact(3, 4, 1, 4) == pytest.approx(34 / 70)


def test_fisher_all_against_none():
    """0 of 5 against 5 of 5: only the two most extreme tables, 2 / C(10, 5)."""
    assert fisher_exact(0, 5, 5, 5) == pytest.approx(0.00794, abs=5e-6)
    assert fisher_exact(0, 5, 5, 5) == pytest.approx(2 / math.comb(10, 5), rel=1e-15)
    assert fisher_exact(5, 5, 0, 5) == fisher_exact(0, 5, 5, 5)


def test_fisher_dieting_example():
    """The classic 2x2 (1 of 12 men, 9 of 12 women dieting): R's fisher.test gives p-value = 0.002759."""
    assert round(fisher_exact(1, 12, 9, 12), 6) == 0.002759


def test_fisher_no_difference_is_one():
    assert fisher_exact(0, 5, 0, 5) == 1.0
    assert fisher_exact(2, 5, 3, 5) == 1.0
    assert math.isnan(fisher_exact(0, 0, 1, 1))


@pytest.mark.parametrize("bad", [(6, 5), (-1, 5), (1.5, 3), (True, 3)])
def test_bad_counts_are_input_errors(bad):
    with pytest.raises(InputError, match="wilson"):
        wilson(*bad)
    with pytest.raises(InputError, match="fisher_exact"):
        fisher_exact(*bad, 1, 2)
