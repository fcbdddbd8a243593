"""The exceptions of metric_elicitation.

Every error the library reports is an :class:`ElicitError`; a bad spec,
setting or argument is a :class:`SpecError` (also a :class:`ValueError`)
whose ``field`` names what is wrong (``"epsilon"``, ``"population.labels[3]"``,
``"proba"``). Nothing a user passes crashes the interpreter.
"""

from __future__ import annotations

from typing import Optional

__all__ = [
    "ElicitError",
    "SpecError",
    "TranscriptError",
    "FileError",
    "UndeterminedError",
]


class ElicitError(Exception):
    """An error reported by metric-elicitation (the base of the others).

    ``field`` names the spec field or argument at fault, when there is one.
    """

    def __init__(self, message: str, field: Optional[str] = None) -> None:
        super().__init__(message)
        self.field = field


class SpecError(ElicitError, ValueError):
    """A spec, setting or argument the library refuses; ``field`` names it."""


class TranscriptError(ElicitError):
    """A transcript that does not parse, was edited, or belongs to another spec."""


class FileError(ElicitError, OSError):
    """A file that cannot be read or written; ``field`` is its path."""


class UndeterminedError(ElicitError):
    """The answers leave the metric undetermined: the result is only one of
    the metrics they allow, so it is not presented as *the* metric.

    ``causes`` lists what is undetermined (the result's ``undetermined``).
    Use :meth:`Result.metric_allowing_undetermined` to take it anyway.
    """

    def __init__(self, message: str, causes: Optional[list] = None) -> None:
        super().__init__(message, None)
        self.causes = list(causes or [])
