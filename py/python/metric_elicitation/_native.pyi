"""Type stubs of the native module (PyO3). The public API is the package's
(`metric_elicitation.run`, `Session`, `Metric`, …); these are its parts."""

from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__version__: str

def check_spec(text: str, toml: bool, origin: str, base: str) -> str:
    """Parses and checks a spec; returns it as JSON with data paths resolved."""

def procedures() -> List[Tuple[str, str, str]]:
    """Every registered procedure: (name, engine, summary)."""

def run(
    spec_json: str,
    base: str,
    oracle: Optional[Callable[["Question"], Any]] = None,
    transcript: Optional[str] = None,
) -> Tuple[str, List[str]]:
    """Runs a spec; returns the result JSON and the transcript's notices."""

def run_specs(specs: Sequence[str], base: str) -> List[Tuple[bool, str]]:
    """Runs every spec (JSON) in parallel, the GIL released; (ok, result JSON or error) in order."""

def run_seeds(spec_json: str, base: str, seeds: Sequence[int]) -> List[Tuple[bool, str]]:
    """Runs a spec once per oracle seed in parallel: (ok, result JSON or error)."""

def statistics() -> List[str]:
    """The statistics a metric can read, described."""

def information_bound(d: int, eps: float, p: float = 0.0) -> float:
    """d·log2(1/eps)/(1 − H(p)): answers d free parameters need to eps."""

def sphere_bound(q: int, eps: float, level: float = 0.95) -> float:
    """Fewest questions on average to a credible eps-ball on the whole sphere."""

def simplex_bound(parts: int, eps: float, level: float = 0.95) -> float:
    """Fewest questions on average to a credible eps in max |dw| on the simplex."""

class Question:
    """One comparison: classifier A (``a``) against classifier B (``b``)."""

    @property
    def number(self) -> int:
        """The question's number (1-based)."""
    @property
    def expected(self) -> Optional[int]:
        """About how many questions the elicitation takes."""
    @property
    def asked(self) -> int:
        """Questions shown to the person so far, this one included."""
    @property
    def check(self) -> bool:
        """Whether it is a check question, asked after the elicitation."""
    @property
    def swapped(self) -> bool:
        """Whether B is shown on the left."""
    @property
    def a(self) -> npt.NDArray[np.float64]:
        """Classifier A's coordinates as the procedure asks them."""
    @property
    def b(self) -> npt.NDArray[np.float64]:
        """Classifier B's coordinates."""
    @property
    def a_exact(self) -> List[str]:
        """A's coordinates as lossless decimals."""
    @property
    def b_exact(self) -> List[str]:
        """B's coordinates as lossless decimals."""
    @property
    def view(self) -> Dict[str, Any]:
        """How each classifier is shown."""
    @property
    def progress(self) -> str:
        """``question n of about m``."""

class NativeSession:
    """An interview answered one question at a time."""

    def __init__(
        self, spec_json: str, base: str, transcript: Optional[str] = None, person: bool = True
    ) -> None: ...
    def next_question(self) -> Optional[Question]:
        """The next question, or None when the elicitation is over."""
    def answer(self, number: int, answer: str) -> None:
        """Answers question `number` with "a", "b" or "tie"."""
    def undo(self) -> bool:
        """Takes the last answer back."""
    def result(self) -> Optional[str]:
        """The result JSON once every question is answered."""
    def asked(self) -> int:
        """Questions shown and answered."""
    def notices(self) -> List[str]:
        """What the transcript said on opening."""

class NativeMetric:
    """A metric read from a result JSON."""

    def __init__(self, result_json: str) -> None: ...
    def family(self) -> str:
        """The metric family."""
    def is_cost(self) -> bool:
        """Whether smaller is better."""
    def classes(self) -> Optional[int]:
        """k."""
    def groups(self) -> Optional[int]:
        """m, for fair metrics."""
    def statistic(self, k: int) -> str:
        """The statistic it reads, described."""
    def values(
        self,
        predictions: Sequence[Tuple[str, npt.NDArray[np.int64]]],
        labels: npt.NDArray[np.int64],
        groups: Optional[npt.NDArray[np.int64]] = None,
    ) -> List[float]:
        """The value of each named prediction vector."""
    def gain_matrix(self) -> Optional[Tuple[npt.NDArray[np.float64], bool]]:
        """A linear metric's gain matrix and whether it weighs rates."""
    def value_of_confusion(
        self,
        confusion: npt.NDArray[np.float64],
        group_confusions: Optional[Sequence[npt.NDArray[np.float64]]] = None,
        tau: Optional[Sequence[Sequence[float]]] = None,
    ) -> float:
        """The value on a joint confusion matrix (and per-group ones)."""
