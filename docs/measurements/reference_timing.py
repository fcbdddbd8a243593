"""Times koyejolab/qme's LPME (q = 12), QPME (q = 20) and fair procedure ((m, k) = (3, 3),
q = 6) in their own trial settings, with and without a memo around the
oracle's score. Usage: reference_timing.py lpme|qpme|fair memo|plain REPS [QME_DIR]
(QME_DIR: the qme/ folder of a koyejolab/qme checkout, outside this
repository; needs numpy, scipy, scikit-learn). Prints JSON. Ours: the
criterion benches benches/quadratic.rs and benches/multiclass.rs."""
import sys, time, json
sys.path.insert(0, sys.argv[4] if len(sys.argv) > 4 else "qme/qme")
import numpy as np
from common import Sphere, Oracle, create_a_B
from qme import QME
from lpme import LPME
from fpme_utils import FairOracle, create_a_B_lamb_T
from fpme import FPME

which, memo, reps = sys.argv[1], sys.argv[2] == "memo", int(sys.argv[3])

def memoize(oracle, key):
    score = oracle._score
    cache = {}
    def cached(x):
        k = key(x)
        v = cache.get(k)
        if v is None:
            v = score(x)
            cache[k] = v
        return v
    oracle._score = cached
    return cache

def counting(oracle):
    compare = oracle.compare
    n = [0]
    def counted(x, y):
        n[0] += 1
        return compare(x, y)
    oracle.compare = counted
    return n

times, comparisons, evaluated = [], [], []
for r in range(reps):
    np.random.seed(7 + r)
    if which == "lpme":
        # ours: benches/multiclass.rs lpme/q12 (the same truth)
        q = 12
        sphere = Sphere(np.zeros(q), 1.0, q)
        a = np.sin(0.7 * np.arange(q))
        a = a / np.linalg.norm(a)
        oracle = Oracle(a, np.matrix(np.zeros((q, q))))
        cache = memoize(oracle, lambda x: x.tobytes()) if memo else None
        n = counting(oracle)
        t = time.perf_counter()
        LPME(sphere, oracle, 1e-2).run_lpme()
        times.append(time.perf_counter() - t)
    elif which == "qpme":
        q = 20
        sphere = Sphere(np.zeros(q), 1.0, q)
        a, B = create_a_B(sphere, q, well_formed=True)
        oracle = Oracle(a, B)
        cache = memoize(oracle, lambda x: x.tobytes()) if memo else None
        n = counting(oracle)
        t = time.perf_counter()
        QME(sphere, oracle, 1e-2, well_formed=True).run_qme()
        times.append(time.perf_counter() - t)
    else:
        ng, nc = 3, 3
        q = nc * nc - nc
        sphere = Sphere(np.random.randn(q), 1.0, q)
        a, B, lamb, T = create_a_B_lamb_T(sphere, ng, nc, q, well_formed=True)
        oracle = FairOracle(a, B, lamb, T)
        cache = memoize(oracle, lambda xs: b"".join(np.asarray(x).tobytes() for x in xs)) if memo else None
        n = counting(oracle)
        t = time.perf_counter()
        FPME(sphere, oracle, T, nc, q, ng, 1e-2).run_fpme()
        times.append(time.perf_counter() - t)
    comparisons.append(n[0])
    evaluated.append(len(cache) if cache is not None else 2 * n[0])
print(json.dumps({"which": which, "memo": memo, "seconds": times, "comparisons": comparisons, "evaluated": evaluated}))
