"""Arrays from the user, checked once and named in every error: class or
group codes, and class probabilities (used by populations and metrics)."""

from __future__ import annotations

from typing import Any, Optional

import numpy as np

from .errors import SpecError

PROBABILITY_SUM_TOLERANCE = 1e-6


def _check_proba(proba: Any, name: str) -> np.ndarray:
    """n×k probabilities (1-D: P(Y = 1 | x) of a binary task), checked."""
    try:
        p = np.asarray(proba, dtype=np.float64)
    except (TypeError, ValueError) as e:
        raise SpecError(f"{name}: not an array of numbers ({e})", name) from None
    if p.ndim == 1:
        p = np.stack([1.0 - p, p], axis=1)
    if p.ndim != 2 or p.shape[0] == 0 or p.shape[1] < 2:
        raise SpecError(f"{name}: expected n×k probabilities (k ≥ 2) or n scores, got shape {np.shape(proba)}", name)
    bad = ~np.isfinite(p)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise SpecError(f"{name}: row {r}, column {c} is {p[r, c]} (NaN or infinity)", name)
    out = (p < 0.0) | (p > 1.0)
    if out.any():
        r, c = np.argwhere(out)[0]
        raise SpecError(f"{name}: row {r}, column {c} is {p[r, c]}, not a probability in [0, 1]", name)
    sums = p.sum(axis=1)
    off = np.abs(sums - 1.0) > PROBABILITY_SUM_TOLERANCE
    if off.any():
        r = int(np.argmax(off))
        raise SpecError(
            f"{name}: row {r} sums to {sums[r]} (each row's probabilities must sum to 1 within {PROBABILITY_SUM_TOLERANCE})",
            name,
        )
    return p


def _codes(values: Any, name: str, n: Optional[int] = None) -> np.ndarray:
    """Class or group codes 0, 1, … as int64, checked, naming the argument."""
    a = np.asarray(values)
    if a.ndim != 1:
        raise SpecError(f"{name}: expected one value per row (1-D), got shape {a.shape}", name)
    if n is not None and len(a) != n:
        raise SpecError(f"{name}: {len(a)} values for {n} rows", name)
    if a.dtype.kind == "b":
        a = a.astype(np.int64)
    if a.dtype.kind == "f":
        if not np.all(np.isfinite(a)):
            raise SpecError(f"{name}: contains NaN or infinity", name)
        if not np.all(a == np.round(a)):
            raise SpecError(f"{name}: class codes are integers 0, 1, …", name)
        a = a.astype(np.int64)
    if a.dtype.kind not in "iu":
        raise SpecError(f"{name}: class codes are integers 0, 1, …, got {a.dtype}", name)
    if len(a) and a.min() < 0:
        raise SpecError(f"{name}: row {int(np.argmin(a))} has {int(a.min())}, not a code 0, 1, …", name)
    return np.ascontiguousarray(a, dtype=np.int64)
