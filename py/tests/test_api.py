"""The public surface: every public name is documented, the stubs list
every native function, and the names scripts rely on exist."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import metric_elicitation as me
from metric_elicitation import _native


def test_every_public_name_has_a_docstring():
    missing = []
    for name in me.__all__:
        obj = getattr(me, name)
        if not (inspect.getdoc(obj) or "").strip():
            missing.append(name)
        if inspect.isclass(obj):
            for attr, member in vars(obj).items():
                if attr.startswith("_"):
                    continue
                target = member.fget if isinstance(member, property) else member
                if callable(target) or isinstance(member, property):
                    if not (inspect.getdoc(target) or "").strip():
                        missing.append(f"{name}.{attr}")
    assert not missing, missing


def test_the_stub_lists_every_native_name():
    stub = Path(_native.__file__).with_name("_native.pyi")
    if not stub.exists():  # an installed wheel keeps it beside the module
        stub = Path(me.__file__).with_name("_native.pyi")
    tree = ast.parse(stub.read_text())
    stubbed = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    native = {n for n in dir(_native) if not n.startswith("_")}
    assert native == stubbed


def test_the_names_scripts_rely_on():
    for name in ["run", "Session", "Metric", "Result", "Spec", "SpecError", "population", "run_trials"]:
        assert hasattr(me, name)
    assert issubclass(me.SpecError, ValueError)
    for method in ["next_question", "answer", "undo", "result"]:
        assert callable(getattr(me.Session, method))
    for method in ["score", "to_scorer", "predict", "rank", "value", "from_result"]:
        assert callable(getattr(me.Metric, method))
    for attr in ["elicited", "queries", "metric", "to_dict"]:
        assert hasattr(me.Result, attr)
