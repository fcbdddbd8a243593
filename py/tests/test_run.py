"""`run` gives what `elicit run` gives, and refuses what it refuses."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

import metric_elicitation as me


SPECS = Path(__file__).resolve().parents[2] / "examples" / "specs"
EXAMPLE_SPECS = sorted(SPECS.glob("*.toml")) + sorted(SPECS.glob("*.json"))


def test_the_examples_include_simulated_and_person_specs():
    """The shipped specs the next test compares: at least 25 with a
    simulated oracle (run through both), and at least one a person's
    (which `run` refuses: it needs a callable)."""
    person = [p for p in EXAMPLE_SPECS if 'kind = "person"' in p.read_text()]
    assert len(EXAMPLE_SPECS) - len(person) >= 25 and len(person) >= 1


# One test per spec, so that pytest-xdist spreads them over the cores.
@pytest.mark.parametrize("path", EXAMPLE_SPECS, ids=lambda p: p.name)
def test_every_example_spec_gives_the_commands_result(path, elicit):
    """Every shipped spec: the same JSON object through Python as through
    `elicit run` (exit 0 or 3), or an exception where the command exits 2."""
    cli = subprocess.run([elicit, "run", str(path)], capture_output=True, text=True)
    if cli.returncode in (0, 3):
        result = me.run(path)
        assert result.to_dict() == json.loads(cli.stdout), path.name
        # exit 3 exactly when the result is undetermined
        assert result.determined == (cli.returncode == 0), path.name
    else:
        assert cli.returncode == 2, (path.name, cli.stderr)
        with pytest.raises(me.SpecError) as e:
            me.run(path)
        assert e.value.field == "oracle", path.name  # a person's spec: run needs a callable


def test_a_dict_spec_runs_like_its_file(root):
    path = root / "examples" / "specs" / "dlpm.toml"
    as_file = me.run(path)
    as_dict = me.run(me.Spec.load(path).to_dict())
    assert as_file == as_dict


def test_bad_specs_raise_spec_error_naming_the_field():
    good = {
        "procedure": "dlpm",
        "epsilon": 0.01,
        "population": {"kind": "synthetic-002", "p": [1, 3, 5]},
        "oracle": {"kind": "simulated", "metric": [0.2, 0.5, 0.3]},
    }
    cases = [
        ({"epsilon": -1}, "epsilon"),
        ({"epsilon": float("nan")}, "spec"),
        ({"procedure": "nope"}, "procedure"),
        ({"oracle": {"kind": "simulated", "metric": [0.2, 0.5]}}, "oracle.metric"),
        ({"precision": "mpfr:256"}, "precision"),
        ({"budget": 0}, "budget"),
    ]
    for change, field in cases:
        spec = dict(good, **change)
        with pytest.raises(me.SpecError) as e:
            me.run(spec)
        assert isinstance(e.value, ValueError)
        if field != "spec":
            assert e.value.field == field or field in str(e.value), (change, e.value.field, str(e.value))
    with pytest.raises(me.SpecError) as e:
        me.run(dict(good, colour="blue"))
    assert "colour" in str(e.value)
    with pytest.raises(me.FileError):
        me.run("/nonexistent/spec.toml")


def test_an_undetermined_result_is_not_presented_as_the_metric(root):
    r = me.run(root / "examples" / "specs" / "dlpm-csv.toml")
    assert not r.determined and r.undetermined
    with pytest.raises(me.UndeterminedError) as e:
        r.metric
    assert e.value.causes == r.undetermined
    assert r.metric_allowing_undetermined().classes == 3


def test_answers_that_follow_no_metric_are_contradicted_not_a_metric(root):
    # A coin answering the person model: its consistency checks go against
    # it, and the result says so instead of presenting a metric.
    import random

    spec = me.Spec.load(root / "examples" / "specs" / "binary-lpm-ask.toml")
    spec = spec.with_changes(engine="bayes", assumed_mistake_rate="person")
    contradicted = 0
    for seed in range(1, 7):
        coin = random.Random(seed)
        r = me.run(spec, oracle=lambda q: coin.choice("ab"))
        checks = r.consistency_checks
        if not r.contradicted:
            # Converged before the consistency checks (from question 10)
            # found the answers contradictory (`ask` and a person's Session
            # put check questions after it).
            assert r.stop == "converged" and r.queries < 100, r
            continue
        contradicted += 1
        assert not r.determined
        # Contradicted: the 95 % Wilson interval of the disagreement rate
        # lies above 0.2, so at least 3 of 5 (and more than a fifth).
        assert checks["judged"] >= 5 and checks["disagreed"] >= 3, checks
        assert 5 * checks["disagreed"] > checks["judged"], checks
        with pytest.raises(me.UndeterminedError) as e:
            r.metric
        assert "consistency checks went against them" in str(e.value), str(e.value)
        assert "contradicted" in repr(r)
    assert contradicted >= 3
    # A person's Session asks check questions after a converged run: this
    # coin's answers settled at question 10, before the consistency checks
    # could judge them, and the check questions do instead. (Of the
    # Session coins of seeds 1-12, 10 were stopped by the consistency
    # checks, this one by the check questions, and seed 6's 5 check
    # answers happened to agree: the checks are a test, not a proof.)
    coin = random.Random(10)
    s = me.Session(spec)
    while (q := s.next_question()) is not None:
        s.answer(coin.choice("ab"))
    r = s.result()
    assert r.stop == "converged" and r.checks["asked"] >= 5
    assert r.contradicted and not r.determined, r.to_dict()
    with pytest.raises(me.UndeterminedError) as e:
        r.metric
    assert "contradict each other or the elicited metric" in str(e.value)
    # An exact person under the same model is never contradicted.
    truth = me.run(spec.with_changes(oracle={"kind": "simulated", "metric": [0.8, 0.6]}))
    assert not truth.contradicted and truth.determined and truth.error < 0.05


def test_results_expose_the_json_fields(root):
    r = me.run(root / "examples" / "specs" / "binary-lpm.toml")
    d = r.to_dict()
    assert r.elicited == d["elicited"] and r.queries == d["queries"] > 0
    assert r.truth == d["truth"] and r.error == d["error"]
    with pytest.raises(AttributeError):
        r.no_such_field
    assert "binary-lpm" in repr(r)


def test_procedures_lists_every_registered_name():
    names = [p[0] for p in me.procedures()]
    for n in ["binary-lpm", "dlpm", "lpme", "fpme", "qpme", "cost-reward"]:
        assert n in names


def test_trials_in_parallel_equal_trials_one_by_one():
    spec = me.Spec({
        "procedure": "binary-lpm",
        "epsilon": 0.01,
        "engine": "bayes",
        "population": {"kind": "synthetic-003"},
        "oracle": {"kind": "simulated", "metric": [0.8, 0.6], "mistake_rate": 0.1, "seed": 0},
    })
    seeds = list(range(12))
    parallel = me.run_trials(spec, seeds)
    one_by_one = []
    for s in seeds:
        d = spec.to_dict()
        d["oracle"]["seed"] = s
        one_by_one.append(me.run(d))
    assert parallel == one_by_one
    assert len({json.dumps(r.elicited) for r in parallel}) > 1  # the seeds matter
