"""Elicitation specs: the same specs as ``elicit run`` reads (docs/spec.md),
given as a path to a ``.toml``/``.json`` file, a dict, or a :class:`Spec`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any, Mapping, Union

from . import _native
from .errors import SpecError

__all__ = ["Spec", "SpecLike"]


class Spec:
    """A checked elicitation spec.

    Build one from a file (``Spec.load("examples/specs/dlpm.toml")``) or a
    dict (``Spec({"procedure": "dlpm", ...})``); relative data paths are
    relative to the file's folder, or to ``base`` (default: the current
    folder) for a dict. A bad spec raises :class:`SpecError` naming the
    field. The Python package runs f64 only: ``precision = "mpfr:…"`` is
    refused (MPFR is in the Rust library and the ``elicit`` command).

    >>> s = Spec({"procedure": "binary-lpm", "epsilon": 0.01,
    ...           "population": {"kind": "synthetic-003"},
    ...           "oracle": {"kind": "simulated", "metric": [0.8, 0.6]}})
    >>> s.procedure
    'binary-lpm'
    """

    def __init__(self, spec: Mapping[str, Any], base: Union[str, os.PathLike, None] = None) -> None:
        if not isinstance(spec, Mapping):
            raise SpecError(
                f"a spec is a dict, a Spec or a path to a .toml/.json file, got {type(spec).__name__}",
                "spec",
            )
        try:
            text = json.dumps(_plain(spec), allow_nan=False)
        except ValueError as e:
            raise SpecError(f"spec: {e} (nan and inf are not accepted anywhere in a spec)", "spec") from None
        except TypeError as e:
            raise SpecError(f"spec: {e}", "spec") from None
        self._init(text, False, "<dict>", Path(base) if base is not None else Path.cwd())

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Spec":
        """Reads a TOML (``.toml``) or JSON spec file, as ``elicit run`` does."""
        p = Path(path)
        try:
            text = p.read_text(encoding="utf-8")
        except OSError as e:
            from .errors import FileError

            raise FileError(f"{p}: {e.strerror or e}", str(p)) from None
        self = cls.__new__(cls)
        self._init(text, p.suffix == ".toml", str(p), p.resolve().parent)
        return self

    def _init(self, text: str, toml: bool, origin: str, base: Path) -> None:
        self._base = str(base)
        self._json = _native.check_spec(text, toml, origin, self._base)
        self._data = json.loads(self._json)
        precision = self._data.get("precision", "f64")
        if precision != "f64":
            raise SpecError(
                f"precision {precision!r}: the Python package runs f64 only "
                "(MPFR is LGPL and needs a C build: use the Rust library or `elicit run` built with --features mpfr)",
                "precision",
            )

    @property
    def procedure(self) -> str:
        """The procedure's name (``binary-lpm``, ``dlpm``, ``fpme``, …)."""
        return self._data["procedure"]

    @property
    def oracle_kind(self) -> str:
        """``simulated``, ``replay`` or ``person``."""
        return self._data["oracle"]["kind"]

    def to_dict(self) -> dict:
        """The spec as a dict (data paths made absolute)."""
        return json.loads(self._json)

    def with_changes(self, **fields: Any) -> "Spec":
        """A copy with top-level fields replaced (``oracle``, ``epsilon``, …)."""
        d = self.to_dict()
        d.update(fields)
        return Spec(d, base=self._base)

    def __repr__(self) -> str:
        return f"Spec(procedure={self.procedure!r}, oracle={self.oracle_kind!r})"


SpecLike = Union[Spec, Mapping[str, Any], str, os.PathLike]


def as_spec(spec: SpecLike) -> Spec:
    """A :class:`Spec` from any accepted form."""
    if isinstance(spec, Spec):
        return spec
    if isinstance(spec, (str, os.PathLike)):
        return Spec.load(spec)
    return Spec(spec)


def _plain(value: Any) -> Any:
    """Numpy scalars and arrays inside a dict as plain JSON values."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    tolist = getattr(value, "tolist", None)
    if callable(tolist):
        return tolist()
    return value
