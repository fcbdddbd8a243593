"""Running specs: ``run`` (the spec's oracle, or a Python callable) and
``Session`` (a person answering one question at a time, pull style)."""

from __future__ import annotations

import json
import os
from typing import Any, Callable, List, Optional, Sequence, Union

import numpy as np

from . import _native
from .result import Result
from .spec import Spec, SpecLike, as_spec

__all__ = ["run", "Session", "Question", "run_trials"]

Oracle = Callable[["Question"], str]


# The native class is the public Question (its module is metric_elicitation).
Question = _native.Question


def run(
    spec: SpecLike,
    oracle: Optional[Oracle] = None,
    transcript: Union[str, os.PathLike, None] = None,
) -> Result:
    """Runs a spec as ``elicit run`` does and returns its :class:`Result`.

    With ``oracle`` (a callable), a spec whose oracle is ``{"kind":
    "person"}`` asks the callable each question: it receives a
    :class:`Question` and returns ``"a"``, ``"b"`` or ``"tie"``. An
    exception it raises propagates with its traceback; every answer given
    before it stays in ``transcript`` (which a later run resumes from).
    Budgets and transcripts work as in the command. The GIL is released
    while Rust runs (re-taken for each call of the oracle).

    >>> r = run({"procedure": "binary-lpm", "epsilon": 0.001,
    ...          "population": {"kind": "synthetic-003"},
    ...          "oracle": {"kind": "simulated", "metric": [0.8, 0.6]}})
    >>> r.queries, r.determined
    (17, True)
    >>> r.error < 0.001
    True
    """
    s = as_spec(spec)
    if oracle is not None and not callable(oracle):
        from .errors import SpecError

        raise SpecError(f"oracle: expected a callable, got {type(oracle).__name__}", "oracle")
    t = None if transcript is None else os.fspath(transcript)
    # The callable gets the native Question directly: no wrapper per call.
    text, notices = _native.run(s._json, s._base, oracle, t)
    return Result(json.loads(text), notices)


def run_trials(spec: SpecLike, seeds: Any, fields: Optional[Sequence[str]] = None) -> Any:
    """Runs ``spec`` once per seed (``oracle.seed`` set to each) on every
    core in parallel, the GIL released. Each trial's result is identical to
    ``run`` of the same spec and seed.

    Without ``fields``: one :class:`Result` per seed in order, or the
    :class:`~metric_elicitation.errors.ElicitError` that trial raised (a
    failed trial does not stop the others). With ``fields`` (names of
    numeric result fields, e.g. ``("error", "queries")``): a dict of numpy
    arrays, one entry per seed, plus ``"seed"`` and ``"ok"``; a failed
    trial's entries are NaN.

    >>> rows = run_trials({"procedure": "binary-lpm", "epsilon": 0.01,
    ...                    "population": {"kind": "synthetic-003"},
    ...                    "oracle": {"kind": "simulated", "metric": [0.8, 0.6],
    ...                               "mistake_rate": 0.1}},
    ...                   range(8), fields=("queries", "error"))
    >>> rows["queries"].shape, bool(rows["ok"].all())
    ((8,), True)
    """
    s = as_spec(spec)
    from .errors import ElicitError

    seeds = [int(x) for x in seeds]
    out: List[Any] = []
    for ok, text in _native.run_seeds(s._json, s._base, seeds):
        out.append(Result(json.loads(text)) if ok else ElicitError(text))
    if fields is None:
        return out
    rows = {"seed": np.array(seeds, dtype=np.int64), "ok": np.array([isinstance(r, Result) for r in out])}
    for f in fields:
        values = []
        for r in out:
            v = r.to_dict().get(f) if isinstance(r, Result) else None
            values.append(float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else np.nan)
        rows[f] = np.array(values)
    return rows


class Session:
    """An elicitation a person answers one question at a time, for a
    notebook widget or any interface (no threads): the spec's oracle must
    be ``{"kind": "person"}``.

    With ``transcript``, every answer is written to that file before
    :meth:`answer` returns, and a new ``Session`` on the same file resumes
    where the last one stopped (even after the interpreter was killed).
    ``person=True`` (the default) adds what a person's interview adds:
    pairs that look the same are answered "can't tell" for them, and at
    least five check questions follow the elicitation (up to fifteen while
    their answers cannot yet tell the person from a coin).

    >>> s = Session({"procedure": "binary-lpm", "epsilon": 0.05,
    ...              "population": {"kind": "synthetic-003"},
    ...              "oracle": {"kind": "person"}}, person=False)
    >>> q = s.next_question()
    >>> s.answer("a")
    >>> s.undo()
    True
    """

    def __init__(
        self,
        spec: SpecLike,
        transcript: Union[str, os.PathLike, None] = None,
        person: bool = True,
    ) -> None:
        self.spec: Spec = as_spec(spec)
        t = None if transcript is None else os.fspath(transcript)
        self._native = _native.NativeSession(self.spec._json, self.spec._base, t, person)
        self._current: Optional[Question] = None

    def next_question(self) -> Optional[Question]:
        """The next question, or ``None`` when every question is answered."""
        self._current = self._native.next_question()
        return self._current

    def answer(self, answer: str, number: Optional[int] = None) -> None:
        """Answers question ``number`` (default: the current one) with
        ``"a"``, ``"b"`` or ``"tie"``."""
        if number is None:
            q = self._current or self.next_question()
            if q is None:
                from .errors import SpecError

                raise SpecError("the elicitation is over: every question is answered", "number")
            number = q.number
        self._native.answer(number, answer)
        self._current = None

    def undo(self) -> bool:
        """Takes the last answer back; ``False`` when there was none."""
        self._current = None
        return self._native.undo()

    @property
    def done(self) -> bool:
        """Whether every question is answered."""
        return self._native.result() is not None

    @property
    def asked(self) -> int:
        """Questions the person was shown and answered so far."""
        return self._native.asked()

    @property
    def notices(self) -> List[str]:
        """What the transcript said on opening (answers resumed, …)."""
        return self._native.notices()

    def result(self) -> Optional[Result]:
        """The :class:`Result` once every question is answered, else ``None``."""
        text = self._native.result()
        return None if text is None else Result(json.loads(text), self.notices)
