"""metric-elicitation: recover a person's classification metric from
pairwise preferences between classifiers, then score, rank and choose
models by it.

Five lines::

    import metric_elicitation as me
    result = me.run("examples/specs/dlpm.toml")      # or a dict, or a Spec
    print(result.in_words)                            # the metric as a sentence
    metric = result.metric                            # raises if undetermined
    best = metric.predict(model.predict_proba(X))     # Bayes-optimal decisions

The procedures are the papers' (binary LPM/LFPM, multiclass DLPM/LPM and
LPME, fair FPME, quadratic and cubic metrics, cost/reward metrics) and a
Bayesian engine (``engine = "bayes"``); specs are ``elicit run``'s
(docs/spec.md in the repository). f64 only: MPFR is in the Rust library
and the ``elicit`` command.
"""

from __future__ import annotations

from . import _native, bounds, population
from .errors import ElicitError, FileError, SpecError, TranscriptError, UndeterminedError
from .metric import Metric
from .result import Result
from .session import Question, Session, run, run_trials
from .spec import Spec

__version__: str = _native.__version__

__all__ = [
    "ElicitError",
    "FileError",
    "Metric",
    "Question",
    "Result",
    "Session",
    "Spec",
    "SpecError",
    "TranscriptError",
    "UndeterminedError",
    "bounds",
    "population",
    "procedures",
    "run",
    "run_trials",
]


def procedures() -> list:
    """Every procedure a spec can name: ``(name, engine, summary)``."""
    return [tuple(p) for p in _native.procedures()]
