"""Shared fixtures: the repository's root and the `elicit` binary."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def root() -> Path:
    """The repository's root (examples/specs, lab/data)."""
    return ROOT


@pytest.fixture(scope="session")
def elicit() -> str:
    """The `elicit` command to compare with: $ELICIT, else target/debug/elicit."""
    candidates = [
        os.environ.get("ELICIT"),
        os.path.join(os.environ.get("CARGO_TARGET_DIR", str(ROOT / "target")), "debug", "elicit"),
        shutil.which("elicit"),
    ]
    for c in candidates:
        if c and os.path.exists(c):
            return c
    pytest.fail("no elicit binary: build it (cargo build --workspace) or set ELICIT")
