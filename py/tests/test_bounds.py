"""The question bounds (``metric_elicitation.bounds``): closed forms,
monotonicity, and typed errors for bad input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from metric_elicitation import SpecError, bounds

EPS = st.floats(min_value=1e-4, max_value=1.0, allow_nan=False)
LEVEL = st.floats(min_value=0.01, max_value=1.0, allow_nan=False)


@given(d=st.integers(min_value=1, max_value=50), eps=EPS, p=st.floats(0.0, 0.45))
def test_information_is_the_count_over_the_capacity(d, eps, p):
    h = 0.0 if p == 0.0 else -(p * math.log2(p) + (1 - p) * math.log2(1 - p))
    want = d * math.log2(1 / eps) / (1 - h)
    assert bounds.information(d, eps, p) == pytest.approx(want, rel=1e-12, abs=1e-12)


@given(eps=st.floats(min_value=1e-4, max_value=2.0), level=LEVEL)
def test_on_the_circle_the_sphere_bound_is_level_pi_over_theta(eps, level):
    theta = 2 * math.asin(eps / 2)
    want = math.log2(level * math.pi / theta)
    assert bounds.sphere(2, eps, level) == pytest.approx(want, rel=1e-12, abs=1e-12)


@given(eps=st.floats(min_value=1e-3, max_value=1.0), level=LEVEL)
def test_on_the_two_sphere_a_cap_has_area_pi_eps_squared(eps, level):
    want = math.log2(level * 4 / (eps * eps))
    assert bounds.sphere(3, eps, level) == pytest.approx(want, rel=1e-9, abs=1e-9)


@given(q=st.integers(min_value=2, max_value=40), eps=st.floats(1e-3, 0.5), level=LEVEL)
def test_the_sphere_bound_grows_with_q_and_shrinks_with_eps(q, eps, level):
    here = bounds.sphere(q, eps, level)
    assert bounds.sphere(q + 1, eps, level) > here
    assert bounds.sphere(q, eps * 1.5, level) < here


@given(eps=st.floats(min_value=1e-3, max_value=1.0), level=LEVEL)
def test_three_weights_leave_a_hexagon_of_area_three_eps_squared(eps, level):
    want = math.log2(level * 0.5 / (3 * eps * eps))
    assert bounds.simplex(3, eps, level) == pytest.approx(want, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize(
    "call, field",
    [
        (lambda: bounds.sphere(1, 0.05), "q"),
        (lambda: bounds.sphere(200_000, 0.05), "q"),
        (lambda: bounds.sphere(3, 0.0), "eps"),
        (lambda: bounds.sphere(3, float("nan")), "eps"),
        (lambda: bounds.sphere(3, 0.05, 1.5), "level"),
        (lambda: bounds.simplex(1, 0.05), "parts"),
        (lambda: bounds.simplex(22, 0.05), "parts"),
        (lambda: bounds.simplex(3, 1.5), "eps"),
        (lambda: bounds.information(0, 0.05), "d"),
        (lambda: bounds.information(2, -1.0), "eps"),
        (lambda: bounds.information(2, 0.05, 0.7), "p"),
        (lambda: bounds.information(2, 0.05, float("nan")), "p"),
    ],
)
def test_bad_input_is_a_spec_error_naming_the_field(call, field):
    with pytest.raises(SpecError) as info:
        call()
    assert info.value.field == field
