"""The examples in the package's docstrings run as written (against the
installed package)."""

from __future__ import annotations

import doctest
import importlib

import pytest

MODULES = ["bounds", "spec", "metric", "population", "session", "result", "errors", "sweep", "distributed"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(f"metric_elicitation.{name}")
    failures, _ = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert failures == 0
