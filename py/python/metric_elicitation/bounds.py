"""How many questions an elicitation needs: the bounds a researcher checks
the engine's counts against (``docs/measurements/bayes-noise.md``).

* :func:`information` — d·log₂(1/ε)/(1 − H(p)), the count of bits d free
  parameters need to ε when each answer is wrong with probability p
  (``notes/people.md``, "The bound"), as if the parameters ranged over a
  unit cube.
* :func:`sphere` — what any procedure needs on average, with exact
  answers, to stop at a credible ball of chord radius ε when the metric is
  a unit vector of any sign in q coordinates (LPME's a) with a uniform
  prior: log₂(level·|S^(q−1)|/|C_ε|). On a circle at ε = 0.05 it is
  1.36× the count, so no procedure meets 1.3× there.
* :func:`simplex` — the same when the metric is ``parts`` non-negative
  weights summing to one (DLPM's and cost/reward's), the error max |Δw|:
  log₂(level·|Δ|/|B_ε|), below the count (the simplex is smaller than a
  cube).

>>> from metric_elicitation import bounds
>>> round(bounds.information(5, 0.05), 3)
21.61
>>> round(bounds.sphere(2, 0.05), 3)
5.899
>>> bounds.sphere(2, 0.05) > 1.3 * bounds.information(1, 0.05)
True
"""

from __future__ import annotations

from . import _native

__all__ = ["information", "simplex", "sphere"]


def information(d: int, eps: float, p: float = 0.0) -> float:
    """d·log₂(1/ε)/(1 − H(p)) answers for d free parameters to ε, each
    answer wrong with probability p (infinite at p = ½).

    Raises :class:`~metric_elicitation.SpecError` naming ``d``, ``eps`` or
    ``p`` outside d ≥ 1, 0 < ε ≤ 1, 0 ≤ p ≤ ½.

    >>> round(information(1, 0.05, 0.1), 3)
    8.139
    >>> information(1, 0.0)
    Traceback (most recent call last):
    ...
    metric_elicitation.errors.SpecError: ...eps...
    """
    return _native.information_bound(d, eps, p)


def sphere(q: int, eps: float, level: float = 0.95) -> float:
    """The fewest questions, on average, any procedure asking a person who
    never errs needs to stop with ``level`` of a uniform posterior on the
    unit sphere in q coordinates inside one cap of chord radius ε
    (``elicit::bayes::sphere_bound`` in the Rust library, which documents
    the argument).

    Raises :class:`~metric_elicitation.SpecError` naming ``q``, ``eps`` or
    ``level`` for q < 2 or q > 100 000, ε outside (0, 2], ``level``
    outside (0, 1].

    >>> round(sphere(12, 0.05), 2)
    50.56
    """
    return _native.sphere_bound(q, eps, level)


def simplex(parts: int, eps: float, level: float = 0.95) -> float:
    """The fewest questions, on average, any procedure asking a person who
    never errs needs to stop with ``level`` of a uniform posterior on the
    simplex of ``parts`` weights within ε of one estimate in max |Δw|
    (``elicit::bayes::simplex_bound`` in the Rust library).

    Raises :class:`~metric_elicitation.SpecError` naming ``parts``,
    ``eps`` or ``level`` for ``parts`` outside 2..21, ε outside (0, 1],
    ``level`` outside (0, 1].

    >>> round(simplex(3, 0.05), 3)
    5.985
    """
    return _native.simplex_bound(parts, eps, level)
