"""The elicited metric as a Python object: populations from arrays,
scores, rankings, Bayes-optimal decisions and scikit-learn scorers."""

from __future__ import annotations

import gzip

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import metric_elicitation as me
from metric_elicitation import population


def joint_confusion(y, h, k):
    c = np.zeros((k, k))
    np.add.at(c, (y, h), 1.0)
    return c / len(y)


def expected_confusion(proba, h):
    """E[C] when Y | x ~ proba(x): C_ij = mean over x of proba_i(x)·1[h(x) = j]."""
    n, k = proba.shape
    onehot = np.eye(k)[h]
    return proba.T @ onehot / n


@st.composite
def labelled(draw, k=None):
    k = k or draw(st.integers(2, 5))
    n = draw(st.integers(k, 60))
    y = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    h = draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))
    y[:k] = np.arange(k)  # every class occurs
    return k, y, h


@settings(max_examples=60, deadline=None)
@given(labelled(), st.data())
def test_a_dlpm_score_is_its_weights_on_the_joint_diagonal(case, data):
    k, y, h = case
    a = data.draw(st.lists(st.floats(0.0, 1.0), min_size=k, max_size=k).filter(lambda w: sum(w) > 0))
    m = me.Metric.from_result({"procedure": "dlpm", "metric": a})
    c = joint_confusion(y, h, k)
    assert m.score(y, h) == pytest.approx(float(np.dot(a, np.diag(c))), abs=1e-12)
    assert m.value(c) == pytest.approx(m.score(y, h), abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(
    hnp.arrays(np.float64, st.tuples(st.integers(1, 40), st.integers(2, 4)), elements=st.floats(0.01, 1.0)),
    st.data(),
)
def test_predict_is_bayes_optimal_for_linear_metrics(raw, data):
    """No other rule of the same probabilities has a larger expected value
    (the expected confusion under η = proba) than Metric.predict."""
    proba = raw / raw.sum(axis=1, keepdims=True)
    n, k = proba.shape
    a = data.draw(st.lists(st.floats(0.0, 1.0), min_size=k, max_size=k).filter(lambda w: sum(w) > 0))
    m = me.Metric.from_result({"procedure": "dlpm", "metric": a})
    best = m.predict(proba)
    best_value = m.value(expected_confusion(proba, best))
    for other in [np.argmax(proba, axis=1), data.draw(hnp.arrays(np.int64, n, elements=st.integers(0, k - 1)))]:
        assert m.value(expected_confusion(proba, other)) <= best_value + 1e-12


def test_binary_lpm_predict_is_its_threshold():
    m = me.Metric.from_result({"procedure": "binary-lpm", "metric": [0.8, 0.6]})
    eta = np.linspace(0, 1, 101)
    h = m.predict(np.stack([1 - eta, eta], axis=1))
    # class 1 where 0.8·η > 0.6·(1 − η) (a tie goes to class 0)
    assert np.array_equal(h, (eta * 0.8 > (1 - eta) * 0.6).astype(int))
    assert h[0] == 0 and h[-1] == 1
    assert m.predict(eta).tolist() == h.tolist()  # scores as P(Y = 1 | x)


def test_a_nonlinear_metric_has_no_fixed_decision_rule():
    m = me.Metric.from_result({"procedure": "binary-lfpm", "metric": {"p11": 1, "p00": 0, "p0": 0, "q11": 0.5, "q00": -0.5, "q0": 1}})
    with pytest.raises(me.SpecError) as e:
        m.predict([[0.5, 0.5]])
    assert "not linear" in str(e.value)


@pytest.mark.parametrize(
    "proba, y, groups, field",
    [
        (np.ones((3, 2)) / 2, [0, 1], None, "y"),
        (np.ones((3, 2, 1)), [0, 1, 0], None, "proba"),
        ([[0.5, np.nan], [0.5, 0.5]], [0, 1], None, "proba"),
        ([[1.5, -0.5], [0.5, 0.5]], [0, 1], None, "proba"),
        ([[0.5, 0.6], [0.5, 0.5]], [0, 1], None, "proba"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 2], None, "y"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, -1], None, "y"),
        ([[0.5, 0.5], [0.5, 0.5]], [0.5, 1], None, "y"),
        ([[0.5, 0.5], [0.5, 0.5]], [0, 1], [0, 1, 1], "groups"),
        ([[0.5, 0.5], [0.5, 0.5]], [[0, 1]], None, "y"),
    ],
)
def test_bad_arrays_raise_naming_the_argument(proba, y, groups, field):
    with pytest.raises(me.SpecError) as e:
        population.from_proba(proba, y, groups)
    assert e.value.field == field and field in str(e.value)


def test_bad_scoring_arrays_raise_naming_the_argument():
    m = me.Metric.from_result({"procedure": "dlpm", "metric": [1, 2, 3]})
    with pytest.raises(me.SpecError) as e:
        m.score([0, 1, 2], [0, 1])
    assert e.value.field == "y_pred"
    with pytest.raises(me.SpecError) as e:
        m.score([0, 1, 2], [0, 1, 3])
    assert "3" in str(e.value)
    with pytest.raises(me.SpecError) as e:
        m.predict(np.ones((2, 4)) / 4)
    assert e.value.field == "proba"
    with pytest.raises(me.SpecError) as e:
        m.value(np.ones(3))
    assert e.value.field == "confusion"


def test_a_population_from_arrays_elicits_like_the_same_csv(root):
    """The arrays population equals a csv population with the same rows."""
    import csv

    rows = list(csv.DictReader(open(root / "examples" / "specs" / "multiclass_scores.csv")))
    cols = [c for c in rows[0] if c.startswith("p(")]
    proba = np.array([[float(r[c]) for c in cols] for r in rows])
    y = np.array([int(r["label"]) for r in rows])
    from_csv = me.run(root / "examples" / "specs" / "dlpm-csv.toml").to_dict()
    spec = me.Spec.load(root / "examples" / "specs" / "dlpm-csv.toml").to_dict()
    spec["population"] = population.from_proba(proba, y)
    from_arrays = me.run(spec).to_dict()
    assert from_arrays["elicited"] == from_csv["elicited"]
    assert from_arrays["queries"] == from_csv["queries"]


def test_rank_orders_models_best_first():
    m = me.Metric.from_result({"procedure": "dlpm", "metric": [0.1, 0.1, 0.8]})
    y = np.array([0, 1, 2, 2, 2, 1])
    preds = {"zeros": np.zeros(6, int), "twos": np.full(6, 2), "truth": y}
    ranked = m.rank(preds, y)
    assert [n for n, _ in ranked] == ["truth", "twos", "zeros"]
    frame = m.rank(preds, y, as_frame=True)
    assert list(frame["model"]) == ["truth", "twos", "zeros"]


def breast_cancer(root):
    with gzip.open(root / "lab" / "data" / "breast_cancer_wdbc.csv.gz", "rt") as f:
        data = np.loadtxt(f, delimiter=",", skiprows=1)
    return data[:, :-1], data[:, -1].astype(int)


def test_the_scorer_agrees_with_the_metric_and_grid_search_follows_it(root):
    """On the shipped breast-cancer data: the scorer's value is the
    metric's; GridSearchCV with it picks the threshold-shift the metric
    prefers, and a different one for a metric weighing the other class."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import GridSearchCV, cross_val_score
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y = breast_cancer(root)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000))
    model.fit(X, y)
    for weights in ([0.9, 0.1], [0.1, 0.9]):
        m = me.Metric.from_result({"procedure": "binary-lpm", "metric": weights})
        scorer = m.to_scorer()
        assert scorer(model, X, y) == pytest.approx(m.score(y, model.predict(X)))
    # Class weights shift the decision threshold; the metric that values TP
    # (class 1) most picks a larger weight on class 1 than the one valuing TN.
    grid = {"logisticregression__class_weight": [{0: 1, 1: w} for w in (0.05, 0.2, 1, 5, 20)]}
    chosen = []
    for weights in ([0.95, 0.05], [0.05, 0.95]):
        m = me.Metric.from_result({"procedure": "binary-lpm", "metric": weights})
        search = GridSearchCV(make_pipeline(StandardScaler(), LogisticRegression(max_iter=2000)), grid, scoring=m.to_scorer(), cv=3)
        search.fit(X, y)
        best = search.best_params_["logisticregression__class_weight"][1]
        # the search's best has the best mean of the metric over the folds
        scores = cross_val_score(search.best_estimator_, X, y, scoring=m.to_scorer(), cv=3)
        assert scores.mean() == pytest.approx(search.best_score_)
        chosen.append(best)
    assert chosen[0] > chosen[1]


def test_a_fair_metrics_scorer_gets_groups_through_metadata_routing(root):
    """With scikit-learn's metadata routing on, cross_val_score passes each
    fold's groups to the scorer of an elicited FPME metric; each fold's
    score is the metric's value on that fold."""
    import sklearn
    from sklearn.model_selection import KFold, cross_val_score
    from sklearn.tree import DecisionTreeClassifier

    m = me.run(root / "examples" / "specs" / "fpme.toml").metric
    k, groups = m.classes, m.groups
    rng = np.random.default_rng(0)
    n = 300
    X = rng.normal(size=(n, 4))
    y = (np.digitize(X[:, 0], [-0.5, 0.5]) + rng.integers(0, 2, n)) % k
    g = rng.integers(0, groups, n)
    y[: k * groups] = np.repeat(np.arange(k), groups)
    g[: k * groups] = np.tile(np.arange(groups), k)
    rows = rng.permutation(n)
    X, y, g = X[rows], y[rows], g[rows]
    model = DecisionTreeClassifier(max_depth=3, random_state=0)
    cv = KFold(3, shuffle=True, random_state=1)
    with sklearn.config_context(enable_metadata_routing=True):
        scores = cross_val_score(model, X, y, scoring=m.to_scorer(), cv=cv, params={"groups": g})
    expected = []
    for train, test in cv.split(X):
        model.fit(X[train], y[train])
        value = m.score(y[test], model.predict(X[test]), g[test])
        expected.append(value if m.greater_is_better else -value)
    assert scores == pytest.approx(expected)
    with pytest.raises(me.SpecError) as e:
        m.score(y, y)
    assert e.value.field == "groups"


def test_expected_confusions_need_no_labels_and_recover_the_metric():
    """confusions='expected': classifiers are evaluated in expectation under
    the probabilities, so no labels are needed; a DLPM from 400 random rows
    recovers the simulated metric within 0.01."""
    rng = np.random.default_rng(0)
    raw = rng.random((400, 3))
    pop = population.from_proba(raw / raw.sum(axis=1, keepdims=True), confusions="expected")
    assert "labels" not in pop
    r = me.run({"procedure": "dlpm", "epsilon": 0.02, "population": pop,
                "oracle": {"kind": "simulated", "metric": [0.2, 0.5, 0.3]}})
    assert r.determined and r.error < 0.01
    with pytest.raises(me.SpecError) as e:
        population.from_proba(raw / raw.sum(axis=1, keepdims=True))
    assert e.value.field == "y"
    with pytest.raises(me.SpecError) as e:
        me.run({"procedure": "dlpm", "epsilon": 0.02,
                "population": {"kind": "arrays", "probabilities": [[0.5, 0.5]]},
                "oracle": {"kind": "simulated", "metric": [1, 1]}})
    assert e.value.field == "population.labels"


@pytest.mark.parametrize("confusions", ["labelled", "expected"])
def test_lpme_on_arrays_finds_and_certifies_its_sphere(confusions):
    """The sphere procedures on a population from arrays: the query sphere
    is found in the rows' feasible set and certified (as for a dataset),
    and LPME recovers a simulated metric within 2ε."""
    rng = np.random.default_rng(1)
    raw = rng.random((400, 3)) ** 2
    proba = raw / raw.sum(axis=1, keepdims=True)
    y = np.array([rng.choice(3, p=p) for p in proba])
    oracle = {"kind": "simulated", "metric": [0.1, 0.3, 0.2, 0.15, 0.15, 0.1]}
    pop = population.from_proba(proba, y, confusions=confusions, query_center="uniform")
    r = me.run({"procedure": "lpme", "epsilon": 0.01, "population": pop, "oracle": oracle})
    assert r.sphere_radius > 0.01 and r.query_center_t == 0
    assert r.determined and r.error < 0.02
    # The default centre: toward the rows' most accurate classifier, with at
    # least half the radius.
    pop = population.from_proba(proba, y, confusions=confusions)
    toward = me.run({"procedure": "lpme", "epsilon": 0.01, "population": pop, "oracle": oracle})
    assert toward.query_center_t > 0 and toward.sphere_radius >= r.sphere_radius / 2
    assert toward.determined and toward.error < 0.02
    with pytest.raises(me.SpecError) as e:
        population.from_proba(proba, y, query_center="best")
    assert e.value.field == "query_center"


def wine(root):
    """The shipped wine-quality rows: features, quality binned to three
    classes (<= 5, 6, >= 7) and the colour (0 red, 1 white) as the group."""
    with gzip.open(root / "lab" / "data" / "wine_quality_multiclass.csv.gz", "rt") as f:
        data = np.loadtxt(f, delimiter=",", skiprows=1)
    quality = data[:, -2]
    return data[:, :-2], (quality >= 3).astype(int) + (quality >= 4).astype(int), data[:, -1].astype(int)


def test_a_fair_metric_is_elicited_on_ones_own_predictions_with_groups(root):
    """FPME on a population from a scikit-learn model's probabilities and
    the rows' groups: τ is the rows' P(G = g | Y = i), the sphere is found
    in both groups' feasible rates, the simulated fair metric is recovered
    within ε, and the elicited metric scores with the groups."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    X, y, g = wine(root)
    rng = np.random.default_rng(0)
    held = rng.random(len(y)) < 0.5
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500)).fit(X[~held], y[~held])
    pop = population.from_estimator(model, X[held], y[held], groups=g[held])
    truth = {
        "a": [0.169030850946, 0.507092552837, 0.169030850946, 0.338061701891, 0.676123403783, 0.338061701891],
        "b": [[0.485071250072, 0.242535625036, 0.242535625036, 0.242535625036, 0.727606875108, 0.242535625036]],
        "lambda": 0.3,
    }
    r = me.run({"procedure": "fpme", "epsilon": 0.01, "population": pop,
                "oracle": {"kind": "simulated", "metric": truth}})
    assert r.determined and r.error <= 0.01
    for grp in range(2):
        for i in range(3):
            expected = np.mean(g[held][y[held] == i] == grp)
            assert r.tau[grp][i] == pytest.approx(expected, abs=1e-12)
    assert 0 < r.sphere_radius <= 1 / 3
    pred = model.predict(X[held])
    assert np.isfinite(r.metric.score(y[held], pred, groups=g[held]))
    # Without the groups the fair procedure is refused, naming them.
    del pop["groups"]
    with pytest.raises(me.SpecError) as e:
        me.run({"procedure": "fpme", "epsilon": 0.01, "population": pop,
                "oracle": {"kind": "simulated", "metric": truth}})
    assert e.value.field == "population.groups"
