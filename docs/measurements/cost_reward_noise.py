"""The Bayesian engine against 004's search for cost-reward, behind the
same simulated people (ε = 0.05, the §5 population with 10^5 rows, a
reward on [0, 5] and a cost on [-0.3, 0], each trial a random metric with
weights uniform on [0, 1] then ℓ1-normalized, exact answers and 10 %
independent mistakes).

    python3 docs/measurements/cost_reward_noise.py target/release/elicit TRIALS K
"""
import os
import tempfile
import json, subprocess, random, statistics, sys

spec_path = os.path.join(tempfile.mkdtemp(), "cost-reward-noise.toml")
E=sys.argv[1]
n=int(sys.argv[2]); k=int(sys.argv[3])
for p in [0.0, 0.1]:
  for engine in ["search","bayes"]:
    errs=[];qs=[];det=0;silent=0
    for trial in range(n):
        rnd=random.Random(1000*k+trial)
        w=[rnd.random() for _ in range(k+2)]; s=sum(w); w=[x/s for x in w]
        spec=f'''procedure = "cost-reward"
epsilon = 0.05
engine = "{engine}"
attributes = [
  {{ name = "speed", kind = "reward", lower = 0, upper = 5 }},
  {{ name = "cost", kind = "cost", lower = -0.3, upper = 0 }},
]
[population]
kind = "synthetic-004"
classes = {k}
rows = 100000
seed = 2021
[oracle]
kind = "simulated"
metric = {{ accuracy = {json.dumps(w[:k])}, speed = {w[k]}, cost = {w[k+1]} }}
mistake_rate = {p}
seed = {trial}
'''
        open(spec_path,"w").write(spec)
        out=subprocess.run([E,"run",spec_path],capture_output=True,text=True)
        try: r=json.loads(out.stdout)
        except Exception: print(out.stderr[:400]); raise
        e=r["error"]; errs.append(e); qs.append(r["queries"]); det+=(out.returncode==0)
        silent += (out.returncode==0 and e>0.05)
    print(f"k={k} p={p} {engine}: within eps {sum(e<=0.05 for e in errs)}/{n}, silent wrong {silent}, exit0 {det}, median q {statistics.median(qs)}, max q {max(qs)}, max err {max(errs):.3f}", flush=True)
