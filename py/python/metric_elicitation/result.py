"""The result of an elicitation: the JSON object ``elicit run`` prints, as
a typed object."""

from __future__ import annotations

import copy
from typing import Any, List, Optional

from .errors import UndeterminedError

__all__ = ["Result"]


class Result:
    """What an elicitation gave: ``elicit run``'s JSON fields as attributes.

    ``elicited`` (the metric's parameters in the spec's ``oracle.metric``
    shape), ``queries`` (questions answered), ``undetermined`` (what the
    answers leave open, empty when the metric is determined at ε),
    ``in_words`` (the result as a sentence), ``warnings``, and for a
    simulated oracle ``truth`` and ``error``. Any other field of the JSON
    is an attribute too; :meth:`to_dict` gives the whole object.

    :attr:`metric` is the elicited metric as a :class:`Metric`; it raises
    :class:`UndeterminedError` when the answers leave the metric
    undetermined (as ``elicit run`` exits 3), since the result is then only
    one of the metrics they allow.
    """

    def __init__(self, data: dict, notices: Optional[List[str]] = None) -> None:
        self._data = data
        self.notices: List[str] = list(notices or [])
        """What the run said about its transcript (resumed answers, …)."""

    @property
    def procedure(self) -> str:
        """The procedure that ran."""
        return self._data["procedure"]

    @property
    def elicited(self) -> Any:
        """The elicited metric's parameters (a list, or a dict of parts)."""
        return self._data.get("elicited")

    @property
    def queries(self) -> int:
        """The number of questions answered (pairs compared)."""
        return int(self._data.get("queries", 0))

    @property
    def undetermined(self) -> List[str]:
        """What the answers leave undetermined at ε (empty when nothing)."""
        return list(self._data.get("undetermined", []))

    @property
    def determined(self) -> bool:
        """Whether the answers determine the metric at ε."""
        return not self._data.get("undetermined")

    @property
    def in_words(self) -> Optional[str]:
        """The result as a sentence."""
        return self._data.get("in_words")

    @property
    def sentence(self) -> Optional[str]:
        """The result in the task's words, for a person's session (class and
        group names from the spec's ``task``); else :attr:`in_words`."""
        return self._data.get("sentence", self._data.get("in_words"))

    @property
    def warnings(self) -> List[dict]:
        """Warnings, each ``{"cause": …, "message": …}`` (stable causes)."""
        return list(self._data.get("warnings", []))

    @property
    def contradicted(self) -> bool:
        """Whether the answers were judged contradictory: the person
        model's consistency checks ended the elicitation (``stop =
        "contradicted"``, under ``assumed_mistake_rate = "person"``; the
        counts in :attr:`consistency_checks`), the check questions after
        it went against the elicited metric (a person's :class:`Session`,
        ``elicit ask``), or a search's answers contradicted each other. An
        entry ``contradictory: …`` of :attr:`undetermined` says which; no
        metric is presented (:attr:`metric` raises). (A ``contradictory``
        warning from an oracle that declares noise, ``eps_omega`` > 0,
        leaves the metric determined and is not counted.) :func:`run` asks
        no check questions after the elicitation: a run that converged
        before the person model's first consistency checks (from question 10) are
        judged only by a :class:`Session`'s check questions."""
        return self._checks_ended_it or any(
            u.startswith("contradictory:") for u in self.undetermined
        )

    @property
    def _checks_ended_it(self) -> bool:
        # The person model's consistency checks ended the elicitation.
        return self._data.get("stop") == "contradicted"

    @property
    def consistency_checks(self) -> Optional[dict]:
        """The consistency checks asked during the elicitation
        (``{"asked": …, "judged": …, "disagreed": …}``; under
        ``assumed_mistake_rate = "person"``), else ``None``."""
        checks = self._data.get("consistency_checks")
        return None if checks is None else dict(checks)

    @property
    def metric(self) -> "Metric":
        """The elicited metric; :class:`UndeterminedError` when undetermined
        (and when :attr:`contradicted`)."""
        if not self.determined:
            if self._checks_ended_it:
                c = self.consistency_checks or {}
                head = (
                    "the answers may not follow one metric: "
                    f"{c.get('disagreed', '?')} of {c.get('judged', '?')} consistency "
                    "checks went against them ("
                )
            elif self.contradicted:
                head = "the answers contradict each other or the elicited metric ("
            else:
                head = "the answers leave the metric undetermined ("
            raise UndeterminedError(
                head
                + "; ".join(self.undetermined)
                + "); the result is only one of the metrics they allow: "
                "use metric_allowing_undetermined() to take it anyway",
                self.undetermined,
            )
        return self.metric_allowing_undetermined()

    def metric_allowing_undetermined(self) -> "Metric":
        """The elicited metric even when the answers leave it undetermined
        (``elicit run --allow-undetermined``)."""
        from .metric import Metric

        return Metric.from_result(self)

    def to_dict(self) -> dict:
        """The whole result, as ``elicit run`` prints it."""
        return copy.deepcopy(self._data)

    def __getattr__(self, name: str) -> Any:
        data = self.__dict__.get("_data")
        if data is not None and name in data:
            return copy.deepcopy(data[name])
        raise AttributeError(f"the result has no field {name!r}")

    def __dir__(self) -> List[str]:
        return sorted(set(super().__dir__()) | set(self._data))

    def __repr__(self) -> str:
        state = "contradicted" if self.contradicted else "determined" if self.determined else "undetermined"
        return f"<Result {self.procedure}: {self.queries} queries, {state}: {self.in_words!r}>"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Result) and self._data == other._data


from .metric import Metric  # noqa: E402  (for the annotations above)
