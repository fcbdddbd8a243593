"""Writes scores.csv: 2000 (score, label) pairs from the population of
003 App. A (X ~ U[-1, 1], eta(x) = 1/(1 + e^{5x}), label ~ Bernoulli(eta),
score = eta(x)), seeded, so the file can be regenerated exactly."""
import csv, math, random

rng = random.Random(1)
with open("scores.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["score", "label"])
    for _ in range(2000):
        x = rng.uniform(-1.0, 1.0)
        eta = 1.0 / (1.0 + math.exp(5.0 * x))
        w.writerow([repr(eta), 1 if rng.random() < eta else 0])
