"""An elicited metric as a Python object: score predictions, rank models,
make a scikit-learn scorer, and predict with the Bayes-optimal classifier
of a linear metric."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence, Tuple

import numpy as np

from . import _native
from ._arrays import _check_proba, _codes
from .errors import FileError, SpecError

__all__ = ["Metric"]


class Metric:
    """An elicited classification metric.

    Read it from a :class:`Result` (``result.metric``), from a result dict
    or JSON file (``Metric.from_result(path)``), or give one directly:
    ``Metric.from_result({"procedure": "dlpm", "metric": [0.2, 0.5, 0.3]})``.

    Its value is the paper's (a cost for cost metrics; see
    :attr:`greater_is_better`): for DLPM Σᵢ aᵢ·P(Y = i, h = i), for binary
    LPM m11·TP + m00·TN, for the fair metrics the groups' rates and their
    discrepancies (``groups=`` needed).

    >>> m = Metric.from_result({"procedure": "binary-lpm", "metric": [0.8, 0.6]})
    >>> round(m.score([0, 1, 1, 0], [0, 1, 0, 0]), 3)
    0.5
    """

    def __init__(self, native: Any, source: dict) -> None:
        self._native = native
        self._source = source

    @classmethod
    def from_result(cls, result: Any) -> "Metric":
        """The metric of a result (its ``elicited``), of a run's ``truth``, or
        of ``{"procedure": …, "metric": …}``: ``result`` is a :class:`Result`
        (anything with ``to_dict()``), a dict, or a str or path naming a
        JSON file.

        Raises :class:`SpecError` for a result that cannot rank (naming why)
        or a metric that gives every classifier the same value.
        """
        to_dict = getattr(result, "to_dict", None)
        if callable(to_dict) and not isinstance(result, (Mapping, str, os.PathLike)):
            # A Result (read by its to_dict: result.py imports this module).
            data = to_dict()
        elif isinstance(result, (str, os.PathLike)):
            try:
                data = json.loads(Path(result).read_text(encoding="utf-8"))
            except OSError as e:
                raise FileError(f"{result}: {e.strerror or e}", str(result)) from None
            except json.JSONDecodeError as e:
                raise SpecError(f"{result}: not JSON ({e})", "result") from None
        elif isinstance(result, Mapping):
            data = dict(result)
        else:
            raise SpecError(f"expected a Result, a dict or a JSON file, got {type(result).__name__}", "result")
        from .spec import _plain

        data = _plain(data)
        return cls(_native.NativeMetric(json.dumps(data)), data)

    @property
    def procedure(self) -> str:
        """The procedure whose metric this is."""
        return self._source["procedure"]

    @property
    def family(self) -> str:
        """The metric family (``binary-linear``, ``diagonal``, ``fair``, …)."""
        return self._native.family()

    @property
    def is_cost(self) -> bool:
        """Whether smaller values are better."""
        return self._native.is_cost()

    @property
    def greater_is_better(self) -> bool:
        """Whether larger values are better (scikit-learn's flag)."""
        return not self._native.is_cost()

    @property
    def classes(self) -> Optional[int]:
        """The number of classes k its weights are for."""
        return self._native.classes()

    @property
    def groups(self) -> Optional[int]:
        """The number of groups of a fair metric (``None`` otherwise)."""
        return self._native.groups()

    def score(self, y_true: Any, y_pred: Any, groups: Any = None) -> float:
        """The metric's value of predictions ``y_pred`` against ``y_true``
        (class codes 0..k−1), with ``groups`` (codes 0..m−1) for a fair
        metric. A cost for cost metrics."""
        y = _codes(y_true, "y_true")
        h = _codes(y_pred, "y_pred", len(y))
        g = self._groups(groups, len(y))
        return self._native.values([("y_pred", h)], y, g)[0]

    def _groups(self, groups: Any, n: int) -> Optional[np.ndarray]:
        if groups is None:
            if self.groups:
                raise SpecError(
                    f"groups: the fair metric compares m = {self.groups} groups; pass groups= (one group code per row)",
                    "groups",
                )
            return None
        return _codes(groups, "groups", n)

    def rank(
        self,
        predictions: Mapping[str, Any],
        y_true: Any,
        groups: Any = None,
        as_frame: bool = False,
    ) -> Any:
        """Ranks models by this metric, best first: ``predictions`` maps a
        name to its predicted classes. A list of ``(name, value)``, or a
        pandas DataFrame with ``as_frame=True``."""
        if not isinstance(predictions, Mapping) or not predictions:
            raise SpecError("predictions: a non-empty dict of name -> predicted classes", "predictions")
        y = _codes(y_true, "y_true")
        g = self._groups(groups, len(y))
        items = [(str(k), _codes(v, f"predictions[{k!r}]", len(y))) for k, v in predictions.items()]
        values = self._native.values(items, y, g)
        order = sorted(range(len(items)), key=lambda i: values[i], reverse=not self.is_cost)
        ranked = [(items[i][0], values[i]) for i in order]
        if as_frame:
            import pandas as pd

            return pd.DataFrame(ranked, columns=["model", "value"])
        return ranked

    def value(
        self,
        confusion: Any,
        group_confusions: Optional[Sequence[Any]] = None,
        tau: Any = None,
    ) -> float:
        """The value on a joint confusion matrix C (k×k, C_ij = P(Y = i,
        h = j)); a fair metric also takes one per group and τ (m rows of k,
        τ_gi = P(G = g | Y = i))."""
        c = np.ascontiguousarray(confusion, dtype=np.float64)
        if c.ndim != 2:
            raise SpecError(f"confusion: a k×k matrix, got shape {c.shape}", "confusion")
        gs = None
        if group_confusions is not None:
            gs = [np.ascontiguousarray(g, dtype=np.float64) for g in group_confusions]
        t = None if tau is None else np.asarray(tau, dtype=np.float64).tolist()
        return self._native.value_of_confusion(c, gs, t)

    def gain_matrix(self) -> Tuple[np.ndarray, bool]:
        """For a linear metric, G (k×k) with utility Σᵢⱼ G_ij·C_ij (negated
        for a cost, so larger is always better) and whether C holds rates
        P(h = j | Y = i) instead of joint confusions. Raises
        :class:`SpecError` for a metric that is not linear in the
        confusion (fractional, quadratic, fair, cost/reward)."""
        g = self._native.gain_matrix()
        if g is None:
            raise SpecError(
                f"a {self.family} metric is not linear in the confusion: its Bayes-optimal "
                "classifier is not a fixed rule of the probabilities (it depends on the population)",
                "metric",
            )
        return g

    def predict(self, proba: Any, prior: Any = None) -> np.ndarray:
        """The Bayes-optimal decisions of a linear metric from class
        probabilities ``proba`` (n×k, e.g. ``predict_proba``): argmaxⱼ Σᵢ
        G_ij·ηᵢ(x) (ηᵢ(x)/πᵢ for a metric of rates, πᵢ the class prior:
        ``prior``, by default the mean of ``proba``'s columns). For binary
        LPM this is the threshold η(x) ≥ m00/(m11 + m00).

        The best classifier for the metric among all that use ``proba``,
        when ``proba`` is calibrated (Koyejo et al. 2014; 002 Prop. 1)."""

        p = _check_proba(proba, "proba")
        g, rates = self.gain_matrix()
        k = g.shape[0]
        if p.shape[1] != k:
            raise SpecError(f"proba: {p.shape[1]} columns for a metric of k = {k} classes", "proba")
        if rates:
            pi = p.mean(axis=0) if prior is None else np.asarray(prior, dtype=np.float64)
            if pi.shape != (k,) or not np.all(pi > 0):
                raise SpecError("prior: k positive class probabilities", "prior")
            p = p / pi
        return np.argmax(p @ g, axis=1)

    def to_scorer(self) -> Any:
        """A scikit-learn scorer of this metric (``greater_is_better`` set
        from :attr:`is_cost`), for ``cross_val_score`` and ``GridSearchCV``.

        A fair metric needs each row's group: with scikit-learn's metadata
        routing enabled (``sklearn.set_config(enable_metadata_routing=True)``)
        the scorer requests ``groups``, passed as ``params={"groups": g}``
        (``cross_val_score``) or ``fit(X, y, groups=g)`` (``GridSearchCV``).
        """
        from sklearn.metrics import make_scorer

        def score(y_true: Any, y_pred: Any, groups: Any = None) -> float:
            return self.score(y_true, y_pred, groups)

        score.__name__ = f"elicited_{self.procedure.replace('-', '_')}"
        scorer = make_scorer(score, greater_is_better=self.greater_is_better)
        if self.groups:
            try:
                scorer = scorer.set_score_request(groups=True)
            except RuntimeError:
                pass  # routing disabled: groups cannot reach the scorer
        return scorer

    def to_dict(self) -> dict:
        """What the metric was read from."""
        return json.loads(json.dumps(self._source))

    def __repr__(self) -> str:
        part = self._source.get("elicited", self._source.get("metric", self._source.get("truth")))
        return f"<Metric {self.procedure} ({self.family}): {part}>"

