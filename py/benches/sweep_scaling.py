"""The sweep runner on a local Dask cluster: the scaling of a 10^4-trial
sweep from 1 to 2 worker processes, and the engine's overhead per task
against the time of a trial (to choose the task size).

    RAYON_NUM_THREADS=1 python py/benches/sweep_scaling.py [--trials 2500] [--rounds 3]

Each worker is one process with one thread (RAYON_NUM_THREADS=1 keeps the
native code on that thread, so 2 workers use the 2 cores). Rounds alternate
1 and 2 workers; the rows of every run are compared with the first run's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from distributed import Client, LocalCluster

from metric_elicitation.sweep import Sweep


def sweep(trials: int) -> Sweep:
    return Sweep(
        template={"procedure": "dlpm", "epsilon": 0.01, "reference": 1,
                  "population": {"kind": "synthetic-002", "p": [1.0, 3.0, 5.0]},
                  "oracle": {"kind": "simulated", "adversary": "random"}},
        vary={"population.p": [[1.0, 3.0, 5.0], [1.0, 2.0, 3.5, 5.0]],
              "oracle.eps_omega": [0.0, 1e-4]},
        metrics="simplex", trials=trials, record=("error", "queries", "error/rate"), seed=1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--trials", type=int, default=2500, help="per setting (4 settings)")
    ap.add_argument("--chunk", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    if os.environ.get("RAYON_NUM_THREADS") != "1":
        raise SystemExit("run with RAYON_NUM_THREADS=1 (one thread per worker)")
    s = sweep(a.trials)
    total = 4 * a.trials
    # The time of a trial, in this process, one thread, one large task.
    start = time.perf_counter()
    s.run_task((0, 0, 400))
    s.run_task((3, 0, 400))
    per_trial = (time.perf_counter() - start) / 800
    print(f"trial: {per_trial * 1e3:.3f} ms (mean over 800, k = 3 and 4)")
    reference = None
    times = {1: [], 2: []}
    overhead = []
    for r in range(a.rounds):
        for n in (1, 2):
            with LocalCluster(n_workers=n, threads_per_worker=1, processes=True,
                              dashboard_address=None) as cluster, Client(cluster) as client:
                # The engine's own cost per task: 400 empty tasks.
                t0 = time.perf_counter()
                client.gather(client.map(lambda i: i, range(400), pure=False))
                overhead.append((time.perf_counter() - t0) / 400 * n)
                t0 = time.perf_counter()
                rows = s.run(client=client, chunk=a.chunk)
                times[n].append(time.perf_counter() - t0)
            text = json.dumps(rows)
            if reference is None:
                reference = text
            assert text == reference, "rows differ between runs"
            print(f"round {r + 1}: {n} worker(s): {times[n][-1]:.2f} s for {total} trials")
    m1, m2 = statistics.median(times[1]), statistics.median(times[2])
    ov = statistics.median(overhead)
    print(f"median: 1 worker {m1:.2f} s, 2 workers {m2:.2f} s: speed-up {m1 / m2:.2f}x")
    print(f"engine overhead per task (empty tasks, per worker): {ov * 1e3:.2f} ms; "
          f"a task of {a.chunk} trials takes {a.chunk * per_trial * 1e3:.1f} ms: "
          f"overhead {ov / (a.chunk * per_trial) * 100:.1f} %; "
          f"5 % needs at least {ov / per_trial / 0.05:.0f} trials per task")
    print("rows identical in every run")


if __name__ == "__main__":
    main()
