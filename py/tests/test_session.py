"""A person's session, one question at a time: answers, undo, the result,
and a transcript that survives the interpreter being killed."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap

import pytest

import metric_elicitation as me

# The papers' search, named: these tests are about the session, and the
# Bayesian engine (a person's default) re-runs its posterior over every
# answer at each question, minutes for a whole session in the unoptimized
# build the tests use (test_a_person_gets_the_bayesian_engine_by_default).
SPEC = {
    "procedure": "dlpm",
    "engine": "search",
    "epsilon": 0.05,
    "population": {"kind": "synthetic-002", "p": [1, 3, 5], "scores": "softmax"},
    "oracle": {"kind": "person"},
    "task": {"labels": ["cat", "dog", "bird"]},
}


def prefer_first_class(q: me.Question) -> str:
    return "a" if q.a[0] > q.b[0] else "b" if q.a[0] < q.b[0] else "tie"


def answer_all(session: me.Session) -> int:
    n = 0
    while (q := session.next_question()) is not None:
        session.answer(prefer_first_class(q))
        n += 1
    return n


def test_a_session_answers_to_the_end_and_gives_the_result():
    s = me.Session(SPEC)
    assert s.result() is None and not s.done
    n = answer_all(s)
    r = s.result()
    assert s.done and n == s.asked > 0
    assert r.procedure == "dlpm" and "cat" in r.sentence


def test_the_person_options_answer_invisible_pairs_and_add_checks():
    person, raw = me.Session(SPEC), me.Session(SPEC, person=False)
    checks = 0
    while (q := person.next_question()) is not None:
        checks += q.check
        person.answer(prefer_first_class(q))
    answer_all(raw)
    # at least 5, up to 15 while their answers decide nothing
    assert 5 <= checks <= 15
    # never two options that look the same: a person's session shows fewer pairs
    assert person.asked - checks < raw.asked


def test_undo_takes_the_last_answer_back():
    s = me.Session(SPEC, person=False)
    q1 = s.next_question()
    s.answer("a")
    q2 = s.next_question()
    assert q2.number == q1.number + 1
    assert s.undo() is True
    again = s.next_question()
    assert again.number == q1.number and list(again.a) == list(q1.a)
    assert s.undo() is False


def test_a_wrong_answer_or_number_raises_naming_it():
    s = me.Session(SPEC, person=False)
    s.next_question()
    with pytest.raises(me.SpecError) as e:
        s.answer("left")
    assert e.value.field == "answer"
    with pytest.raises(me.SpecError) as e:
        s.answer("a", number=7)
    assert e.value.field == "number"


def test_a_session_resumes_after_the_interpreter_is_killed(tmp_path):
    """A subprocess answers three questions and is killed (SIGKILL) while
    waiting before its fourth; a new session on the transcript resumes at
    question 4 and ends where an uninterrupted session ends."""
    transcript = tmp_path / "person.jsonl"
    script = textwrap.dedent(
        f"""
        import os, sys, time
        import metric_elicitation as me
        sys.path.insert(0, {os.path.dirname(__file__)!r})
        from test_session import SPEC, prefer_first_class
        s = me.Session(SPEC, transcript={str(transcript)!r})
        for _ in range(3):
            s.answer(prefer_first_class(s.next_question()))
        s.next_question()
        print("waiting", flush=True)
        time.sleep(60)
        """
    )
    p = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True)
    assert p.stdout.readline().strip() == "waiting"
    p.send_signal(signal.SIGKILL)
    p.wait()
    assert p.returncode == -signal.SIGKILL
    resumed = me.Session(SPEC, transcript=transcript)
    assert resumed.asked == 3
    assert any("3" in n for n in resumed.notices)
    answer_all(resumed)
    whole = me.Session(SPEC)
    answer_all(whole)
    a, b = resumed.result().to_dict(), whole.result().to_dict()
    assert a["elicited"] == b["elicited"] and a["queries"] == b["queries"]


def test_a_session_needs_a_persons_spec():
    with pytest.raises(me.SpecError) as e:
        me.Session(dict(SPEC, oracle={"kind": "simulated", "metric": [1, 2, 3]}))
    assert e.value.field == "oracle.kind"


def test_a_person_gets_the_bayesian_engine_by_default():
    """A binary session with no engine named is the Bayesian engine's, with
    the person model (flips and near-tie confusion, both unknown); the
    first question says so, and the answers of a person preferring found
    cancers end in a determined metric weighing TP above TN."""
    spec = {
        "procedure": "binary-lpm",
        "epsilon": 0.1,
        "monotonicity": "increasing",
        "population": {"kind": "synthetic-003"},
        "oracle": {"kind": "person"},
    }
    s = me.Session(spec)
    while (q := s.next_question()) is not None:
        s.answer("a" if 2 * q.a[0] + q.a[1] > 2 * q.b[0] + q.b[1] else "b")
    r = s.result()
    assert r.engine == "bayes" and r.answer_model == "person"
    assert r.undetermined == []
    assert r.elicited["m11"] > r.elicited["m00"]
