"""The reproduction's sweeps on a Dask cluster.

``reproduce(client, shards=N, ...)`` sends the N parts of
``elicit reproduce --shard I/N`` to the workers of a ``dask.distributed``
client, writes each part as it arrives (``shard-I-of-N.cbor`` in
``parts``), and merges them with ``elicit merge`` into the ``report.md``,
``results.json`` and figures one ``elicit reproduce`` run writes: the same
bytes (see the README, "Sweeps on many machines").

* A part is keyed by its shard: a worker that dies (or is killed) mid-task
  loses nothing written; the scheduler runs its task again on another
  worker, and the part it returns is the same bytes (every setting has its
  own seeded generator), so no trial is lost or counted twice.
* A run is resumable: parts already in ``parts`` (written by this build with
  the same options; ``elicit merge`` checks) are not sent again.

Dask rather than Ray: its scheduler and workers are plain command-line
tools (``dask scheduler``, ``dask worker``) that run on 127.0.0.1 as on a
cluster, it installs from PyPI without a platform wheel of its own, and its
``Client.submit(..., retries=)`` with keyed tasks is all this needs.

The workers run the ``elicit`` command (``elicit``, or the path given), which
must be the same build on every worker.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional, Sequence

__all__ = ["reproduce", "Sharded"]


@dataclass
class Sharded:
    """What :func:`reproduce` did: the merged folder and the parts."""

    #: The folder with report.md, results.json and the figures.
    out: Path
    #: The folder with the parts.
    parts: Path
    #: Shards computed by this call (1-based).
    computed: list = field(default_factory=list)
    #: Shards found in ``parts`` and not computed again.
    reused: list = field(default_factory=list)


def _options(only: Sequence[str], trials: int, seed: int, search: str, precision: str,
             engines: Sequence[str] = (), particles: Optional[int] = None) -> list:
    args = ["--trials", str(trials), "--seed", str(seed), "--search", search, "--precision", precision]
    if engines:
        args += ["--engines", ",".join(engines)]
    if particles is not None:
        args += ["--particles", str(particles)]
    if only:
        args += ["--only", *only]
    return args


def _run_shard(elicit: str, options: list, index: int, count: int, jobs: Optional[int]) -> bytes:
    """Runs on a worker: one shard in a private folder; returns the part's bytes."""
    with tempfile.TemporaryDirectory(prefix="elicit-shard-") as tmp:
        args = [elicit, "reproduce", *options, "--shard", f"{index}/{count}", "--out", tmp]
        if jobs is not None:
            args += ["--jobs", str(jobs)]
        done = subprocess.run(args, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"shard {index}/{count}: {done.stderr.strip()}")
        return (Path(tmp) / f"shard-{index}-of-{count}.cbor").read_bytes()


def _write(path: Path, data: bytes) -> None:
    partial = path.with_suffix(".cbor.partial")
    partial.write_bytes(data)
    os.replace(partial, path)


def reproduce(
    client: Any,
    shards: int,
    *,
    out: "str | os.PathLike[str]" = "reproduction",
    parts: "str | os.PathLike[str] | None" = None,
    only: Sequence[str] = (),
    trials: int = 1000,
    seed: int = 2019,
    search: str = "paper",
    precision: str = "f64",
    engines: Sequence[str] = (),
    particles: Optional[int] = None,
    elicit: str = "elicit",
    jobs: Optional[int] = None,
    retries: int = 2,
    on_part: Optional[Callable[[int], None]] = None,
) -> Sharded:
    """Runs ``elicit reproduce`` in ``shards`` parts on ``client``'s workers
    and merges them into ``out``.

    ``parts`` (default: ``out``/parts) keeps the parts; those already there
    are reused. ``jobs`` sets each shard's threads (``--jobs``; default:
    every core of the worker's machine). ``engines`` and ``particles``
    are the noise jobs' ``--engines`` (e.g. ``["known", "search"]``; default
    all four) and ``--particles`` (default the engine's 1 000).
    ``retries`` is how often a task
    that raised is tried again (a worker lost mid-task is handled by the
    scheduler and does not count). ``on_part(i)`` is called as part ``i``
    is written. Raises ``RuntimeError`` with ``elicit``'s message when a
    shard or the merge fails.

    >>> from dask.distributed import Client                  # doctest: +SKIP
    >>> client = Client("tcp://scheduler:8786")              # doctest: +SKIP
    >>> reproduce(client, 64, only=["000-thm1"], trials=100_000)  # doctest: +SKIP
    """
    from distributed import as_completed

    if shards < 1:
        raise ValueError("shards: needs at least 1")
    out = Path(out)
    parts = Path(parts) if parts is not None else out / "parts"
    parts.mkdir(parents=True, exist_ok=True)
    if particles is not None and not 64 <= particles <= 100_000:
        raise ValueError(f"particles: must be between 64 and 100000, got {particles}")
    options = _options(only, trials, seed, search, precision, engines, particles)
    result = Sharded(out=out, parts=parts)
    tag = hashlib.sha1(" ".join([elicit, *options]).encode()).hexdigest()[:12]
    futures = {}
    for index in range(1, shards + 1):
        path = parts / f"shard-{index}-of-{shards}.cbor"
        if path.exists():
            result.reused.append(index)
            continue
        future = client.submit(
            _run_shard,
            elicit,
            options,
            index,
            shards,
            jobs,
            key=f"elicit-reproduce-shard-{index}-of-{shards}-{tag}",
            retries=retries,
            pure=False,
        )
        futures[future] = index
    for future in as_completed(list(futures)):
        index = futures[future]
        _write(parts / f"shard-{index}-of-{shards}.cbor", future.result())
        result.computed.append(index)
        if on_part is not None:
            on_part(index)
    wanted = [parts / f"shard-{i}-of-{shards}.cbor" for i in range(1, shards + 1)]
    merged = subprocess.run(
        [elicit, "merge", *map(str, wanted), "--out", str(out)],
        capture_output=True,
        text=True,
    )
    if merged.returncode != 0:
        raise RuntimeError(f"elicit merge: {merged.stderr.strip()}")
    return result
