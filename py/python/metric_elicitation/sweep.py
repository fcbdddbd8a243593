"""User-defined sweeps: a spec template, the settings to vary, random
metrics per setting, trials, and what to record per trial; the same rows on
a laptop, on every core, or on a Dask cluster.

>>> from metric_elicitation.sweep import Sweep
>>> sweep = Sweep(
...     template={"procedure": "dlpm", "epsilon": 0.01,
...               "population": {"kind": "synthetic-002", "p": [1.0, 3.0, 5.0]},
...               "oracle": {"kind": "simulated", "adversary": "random"}},
...     vary={"oracle.eps_omega": [0.0, 1e-4], "epsilon": [0.01, 0.001]},
...     metrics="simplex", trials=5, record=("error", "queries", "error/rate"), seed=7)
>>> rows = sweep.run()
>>> len(rows), sorted(rows[0])
(20, ['error', 'error/rate', 'ok', 'queries', 'setting', 'trial'])

Every trial has its own seed, drawn from ``(seed, setting, trial)`` with
numpy's ``SeedSequence``: the hidden metric (from the named generator) and
the oracle's seed (its ``random`` adversary, its ``mistake_rate`` coin) come
from it alone, so a trial's row does not depend on where or with what else
it runs. ``run()`` runs the trials on every core of this machine;
``run(client=...)`` sends tasks of ``chunk`` trials to a Dask cluster's
workers (retried when a worker is lost; rows are keyed by setting and
trial, so a task run twice counts once), and ``checkpoint=`` keeps every
finished task on disk so that a run stopped anywhere resumes where it was.
The rows come back in (setting, trial) order, identical for every runner.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

__all__ = ["Sweep", "GENERATORS", "BOUNDS"]


def _simplex(rng: np.random.Generator, d: int) -> List[float]:
    # Uniform on the simplex (the 002 Thm. 1 sweep's a*: -ln U, normalized).
    raw = -np.log(rng.uniform(1e-12, 1.0, size=d))
    return [float(x) for x in raw / raw.sum()]


def _sphere(rng: np.random.Generator, d: int) -> List[float]:
    # Uniform on the unit sphere (the LPME sweeps' metrics, any sign).
    v = rng.standard_normal(d)
    return [float(x) for x in v / np.linalg.norm(v)]


def _negative_sphere(rng: np.random.Generator, d: int) -> List[float]:
    # Uniform on the negative orthant of the sphere (002 Alg. 2's LPM).
    v = -np.abs(rng.standard_normal(d))
    return [float(x) for x in v / np.linalg.norm(v)]


def _quarter_circle(rng: np.random.Generator, d: int) -> List[float]:
    # (cos θ, sin θ), θ uniform in [0, π/2] (the 003 Thm. 2 sweep's LPMs).
    if d != 2:
        raise ValueError(f"dimension: quarter-circle draws 2 weights, not {d}")
    t = rng.uniform(0.0, math.pi / 2)
    return [math.cos(t), math.sin(t)]


#: The named generators of random hidden metrics: name -> f(rng, dimension).
GENERATORS: Dict[str, Callable[[np.random.Generator, int], List[float]]] = {
    "simplex": _simplex,
    "sphere": _sphere,
    "negative-sphere": _negative_sphere,
    "quarter-circle": _quarter_circle,
}


def _get(spec: dict, path: str, default: Any = None) -> Any:
    node: Any = spec
    for part in path.split("."):
        if not isinstance(node, dict) or part not in node:
            return default
        node = node[part]
    return node


def _set(spec: dict, path: str, value: Any) -> None:
    parts = path.split(".")
    node = spec
    for part in parts[:-1]:
        node = node.setdefault(part, {})
        if not isinstance(node, dict):
            raise ValueError(f"vary: {path} goes through a value that is not a table")
    node[parts[-1]] = value


#: Named bounds for ``record`` entries ``"error/NAME"``: NAME -> f(setting
#: spec, metric dimension). ``rate`` is ε + √ε_Ω (002 Thm. 1's rate, 003
#: Thm. 2 and 004 up to their constants); ``sphere-rate`` is √q·(ε + √ε_Ω)
#: (002 Thm. 2 with λ = 1).
BOUNDS: Dict[str, Callable[[dict, int], float]] = {
    "rate": lambda s, d: float(s["epsilon"]) + math.sqrt(float(_get(s, "oracle.eps_omega", 0.0))),
    "sphere-rate": lambda s, d: math.sqrt(d)
    * (float(s["epsilon"]) + math.sqrt(float(_get(s, "oracle.eps_omega", 0.0)))),
}


def _dimension(spec: dict) -> Optional[int]:
    proc = spec.get("procedure")
    pop = spec.get("population", {})
    k = None
    if isinstance(pop.get("p"), list):
        k = len(pop["p"])
    elif isinstance(pop.get("classes"), int):
        k = pop["classes"]
    if proc in ("binary-lpm",):
        return 2
    if proc == "dlpm" and k:
        return k
    if proc in ("lpm", "lpme"):
        if pop.get("kind") == "sphere" and isinstance(pop.get("dimension"), int):
            return pop["dimension"]
        if k:
            return k * k - k
    return None


@dataclass(frozen=True)
class Sweep:
    """A sweep: ``template`` (a spec dict whose oracle is ``simulated``; its
    ``oracle.metric`` is drawn per trial), ``vary`` (dotted spec paths to
    lists of values: the settings are their product, in order), ``metrics``
    (a name in :data:`GENERATORS`), ``trials`` per setting, ``record`` (the
    result's numeric fields, e.g. ``"error"``, ``"queries"``, and
    ``"error/NAME"`` for a bound in :data:`BOUNDS`), ``seed``, and
    ``dimension`` (the metric's length: derived for binary-lpm, dlpm, lpm
    and lpme, else an int or a function of the setting's spec)."""

    template: dict
    vary: Dict[str, Sequence[Any]]
    metrics: str
    trials: int
    record: Tuple[str, ...] = ("error", "queries")
    seed: int = 0
    dimension: Union[int, Callable[[dict], int], None] = None
    base: str = field(default=".")

    def __post_init__(self) -> None:
        if self.metrics not in GENERATORS:
            raise ValueError(f"metrics: {self.metrics!r} is not one of {sorted(GENERATORS)}")
        if self.trials < 1:
            raise ValueError("trials: needs at least 1")
        if _get(self.template, "oracle.kind") != "simulated":
            raise ValueError("template.oracle.kind: a sweep needs a simulated oracle")
        for r in self.record:
            if r.startswith("error/") and r[len("error/"):] not in BOUNDS:
                raise ValueError(f"record: {r!r}: no bound {r[6:]!r} (known: {sorted(BOUNDS)})")
        for path, values in self.vary.items():
            if not isinstance(values, (list, tuple)) or not values:
                raise ValueError(f"vary.{path}: needs a non-empty list of values")
        for s in self.settings():
            self._dim(s)

    def settings(self) -> List[dict]:
        """Every setting's spec (without the metric), in order."""
        out = []
        paths = list(self.vary)
        for values in product(*(self.vary[p] for p in paths)):
            spec = json.loads(json.dumps(self.template))
            for p, v in zip(paths, values):
                _set(spec, p, v)
            out.append(spec)
        return out

    def _dim(self, spec: dict) -> int:
        if isinstance(self.dimension, int):
            return self.dimension
        if callable(self.dimension):
            return int(self.dimension(spec))
        d = _dimension(spec)
        if d is None:
            raise ValueError(
                f"dimension: cannot derive the metric's length for {spec.get('procedure')!r}; give dimension="
            )
        return d

    def key(self) -> str:
        """A hash of everything that decides the rows (for task keys and
        checkpoints)."""
        text = json.dumps(
            [self.template, {k: list(v) for k, v in self.vary.items()}, self.metrics, self.trials,
             list(self.record), self.seed, None if callable(self.dimension) else self.dimension],
            sort_keys=True,
        )
        return hashlib.sha1(text.encode()).hexdigest()[:16]

    def trial_spec(self, setting: int, trial: int, spec: Optional[dict] = None) -> dict:
        """The spec of one trial: the setting's, with the metric and the
        oracle's seed drawn from ``(seed, setting, trial)``."""
        spec = json.loads(json.dumps(spec if spec is not None else self.settings()[setting]))
        rng = np.random.default_rng(np.random.SeedSequence([self.seed, setting, trial]))
        spec["oracle"]["metric"] = GENERATORS[self.metrics](rng, self._dim(spec))
        spec["oracle"]["seed"] = int(rng.integers(0, 2**63))
        return spec

    def tasks(self, chunk: int) -> List[Tuple[int, int, int]]:
        """``(setting, first trial, end)`` ranges of at most ``chunk`` trials."""
        if chunk < 1:
            raise ValueError("chunk: needs at least 1")
        return [
            (s, t, min(t + chunk, self.trials))
            for s in range(len(self.settings()))
            for t in range(0, self.trials, chunk)
        ]

    def run_task(self, task: Tuple[int, int, int]) -> List[dict]:
        """The rows of one task (every core of this machine)."""
        from . import _native

        setting, start, end = task
        spec = self.settings()[setting]
        dim = self._dim(spec)
        specs = [self.trial_spec(setting, t, spec) for t in range(start, end)]
        results = _native.run_specs([json.dumps(s) for s in specs], os.path.abspath(self.base))
        rows = []
        for t, (ok, text) in zip(range(start, end), results):
            row: Dict[str, Any] = {"setting": setting, "trial": t, "ok": ok}
            result = json.loads(text) if ok else {}
            for r in self.record:
                if r.startswith("error/"):
                    e = result.get("error")
                    bound = BOUNDS[r[6:]](spec, dim)
                    row[r] = float(e) / bound if isinstance(e, (int, float)) and bound > 0 else math.nan
                else:
                    v = result.get(r)
                    row[r] = float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else math.nan
            if not ok:
                row["message"] = text
            rows.append(row)
        return rows

    def run(
        self,
        client: Any = None,
        *,
        chunk: int = 200,
        checkpoint: "str | os.PathLike[str] | None" = None,
        retries: int = 2,
        on_task: Optional[Callable[[Tuple[int, int, int]], None]] = None,
    ) -> List[dict]:
        """Runs every trial; returns the rows in (setting, trial) order.

        ``client``: a ``dask.distributed`` client (default: this process,
        every core). ``chunk``: trials per task (see the README for the
        task overhead against the trial time). ``checkpoint``: a folder
        keeping each finished task's rows; tasks already there are not run
        again. ``retries``: how often a task that raised is tried again (a
        worker lost mid-task is the scheduler's and does not count).
        ``on_task(task)`` is called as each task's rows are kept."""
        store = Path(checkpoint) / self.key() if checkpoint is not None else None
        if store is not None:
            store.mkdir(parents=True, exist_ok=True)
        done: Dict[Tuple[int, int, int], List[dict]] = {}
        todo = []
        for task in self.tasks(chunk):
            path = store / f"{task[0]}-{task[1]}-{task[2]}.json" if store is not None else None
            if path is not None and path.exists():
                done[task] = json.loads(path.read_text())
            else:
                todo.append(task)

        def keep(task: Tuple[int, int, int], rows: List[dict]) -> None:
            done[task] = rows
            if store is not None:
                path = store / f"{task[0]}-{task[1]}-{task[2]}.json"
                partial = path.with_suffix(".partial")
                partial.write_text(json.dumps(rows))
                os.replace(partial, path)
            if on_task is not None:
                on_task(task)

        if client is None:
            for task in todo:
                keep(task, self.run_task(task))
        else:
            from distributed import as_completed

            futures = {
                client.submit(
                    Sweep.run_task,
                    self,
                    task,
                    key=f"sweep-{self.key()}-{task[0]}-{task[1]}-{task[2]}",
                    retries=retries,
                    pure=False,
                ): task
                for task in todo
            }
            for future in as_completed(list(futures)):
                keep(futures[future], future.result())
        rows = [row for task in sorted(done) for row in done[task]]
        # Keyed by (setting, trial): each once, in order.
        if [(r["setting"], r["trial"]) for r in rows] != [
            (s, t) for s in range(len(self.settings())) for t in range(self.trials)
        ]:
            raise RuntimeError("checkpoint: the stored tasks do not cover every trial once")
        return rows
