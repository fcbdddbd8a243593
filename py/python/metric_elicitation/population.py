"""Populations from arrays: a spec's ``population`` built from class
probabilities in memory (``predict_proba`` output), without a CSV file."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from ._arrays import _check_proba, _codes
from .errors import SpecError

__all__ = ["from_proba", "from_estimator"]

#: How far a row of probabilities may sum from 1 (as for CSV files).
def from_proba(
    proba: Any,
    y: Optional[Any] = None,
    groups: Optional[Any] = None,
    confusions: str = "labelled",
    query_center: str = "accurate",
) -> dict:
    """A spec ``population`` of kind ``arrays`` from class probabilities.

    ``proba`` is n×k (``predict_proba`` output; the columns in class order
    0..k−1) or, for a binary task, n scores P(Y = 1 | x); ``y`` the n labels
    (0..k−1); ``groups`` optional group codes (0..m−1), which the fair
    procedures (``fpme``, ``fair-qpme``, ``qpme-tradeoff``) need and every
    other procedure refuses naming ``population.groups``: τ = P(G = g | Y = i)
    is read off the rows and the common query sphere is found in every
    group's feasible rates and certified. numpy arrays, lists or pandas
    Series.
    ``confusions="expected"`` evaluates classifiers in expectation under
    ``proba`` (no labels needed) instead of counting the labels.
    ``query_center`` places the query sphere found in the rows (for ``lpm``,
    ``lpme`` and, with groups, ``fpme`` asked by the Bayesian engine): ``"accurate"`` (toward the rows' most accurate classifier, as
    far as the sphere keeps half its radius) or ``"uniform"`` (at the uniform
    random classifier, the papers' setting); see docs/spec.md.

    Wrong shapes, NaN, values outside [0, 1], rows not summing to 1 and
    mismatched lengths raise :class:`SpecError` naming the argument.

    >>> pop = from_proba([[0.9, 0.1], [0.2, 0.8]], [0, 1])
    >>> pop["kind"]
    'arrays'
    """
    p = _check_proba(proba, "proba")
    if confusions not in ("labelled", "expected"):
        raise SpecError(f"confusions: 'labelled' or 'expected', got {confusions!r}", "confusions")
    if query_center not in ("accurate", "uniform"):
        raise SpecError(f"query_center: 'accurate' or 'uniform', got {query_center!r}", "query_center")
    pop = {"kind": "arrays", "probabilities": p.tolist(), "confusions": confusions}
    if query_center != "accurate":
        pop["query_center"] = query_center
    if y is None:
        if confusions == "labelled":
            raise SpecError("y: labelled confusions need the labels (or confusions='expected')", "y")
    else:
        labels = _codes(y, "y", p.shape[0])
        if labels.max() >= p.shape[1]:
            r = int(np.argmax(labels))
            raise SpecError(f"y: row {r} has class {labels[r]}, but proba has {p.shape[1]} columns", "y")
        pop["labels"] = labels.tolist()
    if groups is not None:
        pop["groups"] = _codes(groups, "groups", p.shape[0]).tolist()
    return pop


def from_estimator(
    estimator: Any,
    X: Any,
    y: Optional[Any] = None,
    groups: Optional[Any] = None,
    confusions: str = "labelled",
    query_center: str = "accurate",
) -> dict:
    """As :func:`from_proba` with a fitted scikit-learn classifier's
    ``predict_proba(X)`` (its ``classes_`` must be 0..k−1)."""
    classes = getattr(estimator, "classes_", None)
    if classes is not None and list(np.asarray(classes)) != list(range(len(classes))):
        raise SpecError(f"estimator: its classes_ are {list(classes)}; encode the labels as 0..k−1", "estimator")
    return from_proba(estimator.predict_proba(X), y, groups, confusions, query_center)
