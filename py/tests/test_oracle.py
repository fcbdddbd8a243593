"""A Python callable answers for the person: it sees each question's two
classifiers, its answers drive the procedure exactly as a simulated oracle's
would, and its exceptions propagate without losing recorded answers."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metric_elicitation as me

# The papers' search, named: a person's default is the Bayesian engine,
# a simulated oracle's with exact answers the search.
BINARY = {
    "procedure": "binary-lpm",
    "engine": "search",
    "epsilon": 0.005,
    "population": {"kind": "synthetic-003"},
}
DLPM = {
    "procedure": "dlpm",
    "engine": "search",
    "epsilon": 0.01,
    "population": {"kind": "synthetic-002", "p": [1, 3, 5], "scores": "softmax"},
}


def answer_by(weights, norm="sum"):
    """Answers by the metric Σ wᵢ·zᵢ, with the simulated oracle's arithmetic
    (weights normalized as its adapter does, products summed left to
    right), so that even exact ties fall the same way."""
    w = [float(x) for x in weights]
    scale = math.sqrt(w[0] ** 2 + w[1] ** 2) if norm == "l2" else sum(w)
    w = [x / scale for x in w]

    def value(z) -> float:
        total = 0.0
        for wi, zi in zip(w, z):
            total += wi * float(zi)
        return total

    def oracle(q: me.Question) -> str:
        fa, fb = value(q.a), value(q.b)
        return "a" if fa > fb else "b" if fa < fb else "tie"

    return oracle


weights = st.lists(st.floats(0.05, 1.0), min_size=2, max_size=2)


@settings(max_examples=25, deadline=None)
@given(weights)
def test_a_callable_answering_from_a_metric_recovers_it(w):
    """Binary LPM: the callable's answers from m give the simulated
    oracle's result for m, and m within the procedure's ε."""
    person = me.run(dict(BINARY, oracle={"kind": "person"}), oracle=answer_by(w, "l2"))
    simulated = me.run(dict(BINARY, oracle={"kind": "simulated", "metric": w}))
    assert person.elicited == simulated.elicited
    assert person.queries == simulated.queries
    m = np.asarray(w) / np.linalg.norm(w)
    got = np.array([person.elicited["m11"], person.elicited["m00"]])
    assert np.max(np.abs(got - m)) < 0.005


@settings(max_examples=10, deadline=None)
@given(st.lists(st.floats(0.1, 1.0), min_size=3, max_size=3))
def test_a_callable_drives_dlpm_as_the_simulated_oracle_does(w):
    person = me.run(dict(DLPM, oracle={"kind": "person"}), oracle=answer_by(w))
    simulated = me.run(dict(DLPM, oracle={"kind": "simulated", "metric": w}))
    assert person.elicited == simulated.elicited
    assert person.queries == simulated.queries


def test_a_callable_person_gets_the_bayesian_engine_by_default():
    """A person may err: with no engine named, a callable person is asked
    by the Bayesian engine, which recovers the metric within ε; the same
    spec with a simulated oracle answering exactly runs the search."""
    spec = {k: v for k, v in BINARY.items() if k != "engine"}
    spec["epsilon"] = 0.05
    w = [0.8, 0.6]
    person = me.run(dict(spec, oracle={"kind": "person"}), oracle=answer_by(w, "l2"))
    assert person.engine == "bayes"
    got = np.array([person.elicited["m11"], person.elicited["m00"]])
    assert np.max(np.abs(got - np.array(w))) < 0.05
    simulated = me.run(dict(spec, oracle={"kind": "simulated", "metric": w}))
    assert "engine" not in simulated.to_dict() and simulated.search == "golden"


def test_questions_carry_arrays_views_and_progress():
    seen = []

    def oracle(q):
        seen.append(q)
        return "a"

    me.run(dict(BINARY, oracle={"kind": "person"}), oracle=oracle)
    q = seen[0]
    # Kept after the run: its view and lossless decimals are built on
    # request from the run's procedure, which the question keeps alive.
    assert isinstance(q, me.Question)
    assert isinstance(q.a, np.ndarray) and q.a.shape == (2,)
    assert [float(x) for x in q.a_exact] == list(q.a)
    assert q.view["a"]["rows"] and q.number == 1
    assert q.progress.startswith("question 1")
    # Read during the call, the same view.
    during = []
    me.run(dict(BINARY, oracle={"kind": "person"}), oracle=lambda q: (during.append(q.view), "a")[1])
    assert during[0] == q.view and len(during) == len(seen)


def test_an_exception_in_the_callable_propagates_and_keeps_the_transcript(tmp_path):
    spec = dict(BINARY, oracle={"kind": "person"})
    transcript = tmp_path / "t.jsonl"
    calls = []

    def flaky(q):
        calls.append(q.number)
        if len(calls) == 4:
            raise KeyError("the widget was closed")
        return answer_by([0.8, 0.6])(q)

    with pytest.raises(KeyError) as e:
        me.run(spec, oracle=flaky, transcript=transcript)
    assert e.traceback[-1].name == "flaky"  # the callable's own frame
    lines = transcript.read_text().splitlines()
    assert len(lines) == 1 + 3  # the header and the three answers given
    # A later run resumes from the three answers and finishes.
    resumed_calls = []

    def steady(q):
        resumed_calls.append(q.number)
        return answer_by([0.8, 0.6])(q)

    r = me.run(spec, oracle=steady, transcript=transcript)
    assert resumed_calls[0] == 4
    whole = me.run(spec, oracle=answer_by([0.8, 0.6]))
    assert r.elicited == whole.elicited and r.queries == whole.queries


@pytest.mark.parametrize("bad", [None, 3, "left", ""])
def test_an_answer_that_is_not_a_b_or_tie_is_refused(bad):
    with pytest.raises(ValueError) as e:
        me.run(dict(BINARY, oracle={"kind": "person"}), oracle=lambda q: bad)
    assert "expected \"a\", \"b\" or \"tie\"" in str(e.value)


def test_a_callable_for_a_simulated_spec_is_refused():
    with pytest.raises(me.SpecError) as e:
        me.run(dict(BINARY, oracle={"kind": "simulated", "metric": [1, 1]}), oracle=lambda q: "a")
    assert e.value.field == "oracle"
    with pytest.raises(me.SpecError):
        me.run(dict(BINARY, oracle={"kind": "person"}), oracle="a")


def test_a_budget_stops_a_callable_run():
    with pytest.raises(me.ElicitError) as e:
        me.run(dict(BINARY, oracle={"kind": "person"}, budget=3), oracle=answer_by([1, 1]))
    assert "budget" in str(e.value)
