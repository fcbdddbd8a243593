//! Pools of real classifiers to rank (001 §6.2, 000 App. H.2): trained on
//! S1, their predictions on S2 are what an elicited metric ranks.
//!
//! The papers' pools (logistic regression, MLP, SVM, LightGBM and
//! fairness-constrained models with varied hyper-parameters) are built with
//! Python libraries. This pool uses maintained Rust crates only, so that
//! `elicit reproduce` needs neither network nor Python, with four families
//! of equal size:
//! * `logistic`: `linfa-logistic` (softmax for k ≥ 3) at four penalty
//!   weights α ∈ {10⁻², 1, 10², 10⁴}, each with decision weights: predict
//!   argmaxⱼ wⱼη̂ⱼ(x), w = 1 for the first member and wⱼ = e^{uⱼ},
//!   uⱼ ~ U[−1, 1], for the others (the cost-sensitive plug-in classifiers a
//!   class-weighted fit approximates);
//! * `tree`: `smartcore` CART (Gini) of depth 1…8 with minimum split
//!   sizes 2, 20, 200;
//! * `weighted-tree`: CART of depth 2…7 with integer class weights in 1…4,
//!   given to the learner as that many copies of each row (CART's weighted
//!   Gini and leaf vote with integer weights are exactly those of the
//!   replicated rows, and the counts stay integers);
//! * `subspace-tree`: CART of depth 3…8 on a random half of S1's rows and
//!   a random half of the features (a random-subspace ensemble's members).
//!
//! Each tree is trained on a random subsample of at most [`TREE_ROWS`] rows
//! of S1 (the logistic members use all of S1). Every random choice comes
//! from one seed, and the learners themselves are deterministic, so a pool
//! is a function of its data and seed: the same predictions on every run.
//! (smartcore's CART counts classes in vectors and breaks ties by the first
//! class and the first feature; an earlier pool used `linfa-trees`, whose
//! class counts live in a randomly seeded `HashMap`, so modal ties and Gini
//! sums changed from one process to the next.)

use metric_elicitation::error::{Error, Result};
use metric_elicitation::fit::{argmax, fit_eta, Prepared, Regularization};
use ndarray::{Array1, Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use smartcore::linalg::basic::matrix::DenseMatrix;
use std::io::Write;
use std::path::Path;

/// One classifier of a pool: its name and its predicted class on each
/// held-out row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Classifier {
    /// A unique name saying how it was built (e.g. `tree-d4-s20`).
    pub name: String,
    /// Predicted class of each held-out row.
    pub predictions: Vec<usize>,
}

/// Training rows of each tree at most (a random subsample of S1).
pub const TREE_ROWS: usize = 6000;

/// The four families of the module docs, in order.
pub const FAMILIES: [&str; 4] = ["logistic", "tree", "weighted-tree", "subspace-tree"];

/// Builds a pool of `size` classifiers (a multiple of 4 is split evenly
/// between the families; a remainder goes to the first ones) trained on
/// `train` and predicting `test`.
///
/// # Errors
/// [`Error::InvalidArgument`] for size 0, mismatched feature columns, or a
/// failed fit.
pub fn build(train: &Prepared, test: &Prepared, size: usize, seed: u64) -> Result<Vec<Classifier>> {
    if size == 0 {
        return Err(Error::invalid("pool", "size must be at least 1"));
    }
    if train.features.ncols() != test.features.ncols() {
        return Err(Error::invalid(
            "pool",
            "train and test have different feature columns",
        ));
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let per = |f: usize| size / 4 + usize::from(f < size % 4);
    let mut pool = logistic(train, test, per(0), &mut rng)?;
    pool.extend(trees(train, test, per(1), &mut rng)?);
    pool.extend(weighted_trees(train, test, per(2), &mut rng)?);
    pool.extend(subspace_trees(train, test, per(3), &mut rng)?);
    Ok(pool)
}

fn class_weights(k: usize, rng: &mut ChaCha8Rng) -> Vec<f64> {
    (0..k)
        .map(|_| rng.random_range(-1.0..1.0f64).exp())
        .collect()
}

fn logistic(
    train: &Prepared,
    test: &Prepared,
    count: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Classifier>> {
    let alphas = [1e-2, 1.0, 1e2, 1e4];
    let mut out = Vec::with_capacity(count);
    for (a, alpha) in alphas.iter().enumerate() {
        let members = count / 4 + usize::from(a < count % 4);
        if members == 0 {
            continue;
        }
        let eta = fit_eta(train, Regularization::Weight(*alpha), 200)?;
        let p = eta.probabilities(test.features.view());
        for m in 0..members {
            let w = if m == 0 {
                vec![1.0; train.classes]
            } else {
                class_weights(train.classes, rng)
            };
            let predictions = p
                .rows()
                .into_iter()
                .map(|row| argmax(row.iter().zip(&w).map(|(e, w)| e * w)))
                .collect();
            out.push(Classifier {
                name: format!("logistic-a{alpha:e}-w{m}"),
                predictions,
            });
        }
    }
    Ok(out)
}

fn tree_failed(e: smartcore::error::Failed) -> Error {
    Error::invalid("pool", format!("decision tree: {e}"))
}

/// `rows` as smartcore's matrix, converted once per family of trees that
/// predict the same rows (not once per tree).
fn dense(rows: &Array2<f64>) -> Result<DenseMatrix<f64>> {
    DenseMatrix::new(
        rows.nrows(),
        rows.ncols(),
        rows.iter().copied().collect(),
        false,
    )
    .map_err(tree_failed)
}

/// A CART tree (Gini) of at most `depth` levels that splits nodes of at
/// least `min_split` rows, trained on `x`, `y` with row `r` counted
/// `copies[r]` times (all once when `None`), predicting the rows of `test`.
fn tree(
    x: &Array2<f64>,
    y: &Array1<usize>,
    copies: Option<&[usize]>,
    depth: usize,
    min_split: usize,
    test: &DenseMatrix<f64>,
) -> Result<Vec<usize>> {
    use smartcore::linalg::basic::arrays::Array as _;
    use smartcore::tree::decision_tree_classifier::{
        DecisionTreeClassifier, DecisionTreeClassifierParameters,
    };
    let times = |r: usize| copies.map_or(1, |c| c[r]);
    // Row-major values of the training rows, each repeated `times(r)` times.
    let mut values = Vec::new();
    let mut labels: Vec<u32> = Vec::new();
    for (r, row) in x.rows().into_iter().enumerate() {
        for _ in 0..times(r) {
            values.extend(row.iter().copied());
            labels.push(
                u32::try_from(y[r]).map_err(|_| Error::invalid("pool", "class index too large"))?,
            );
        }
    }
    // CART needs two classes; a one-class sample predicts its class.
    match labels.first() {
        None => return Err(Error::invalid("pool", "a tree has no training rows")),
        Some(&c) if labels.iter().all(|&l| l == c) => {
            return Ok(vec![c as usize; test.shape().0]);
        }
        Some(_) => {}
    }
    let x = DenseMatrix::new(labels.len(), x.ncols(), values, false).map_err(tree_failed)?;
    let params = DecisionTreeClassifierParameters::default()
        .with_max_depth(u16::try_from(depth).unwrap_or(u16::MAX))
        .with_min_samples_split(min_split);
    // Every feature is tried at every node, so the learner's seed is never
    // drawn from; fixing it keeps the fit independent of the process.
    let params = DecisionTreeClassifierParameters {
        seed: Some(0),
        ..params
    };
    let model: DecisionTreeClassifier<f64, u32, DenseMatrix<f64>, Vec<u32>> =
        DecisionTreeClassifier::fit(&x, &labels, params).map_err(tree_failed)?;
    Ok(model
        .predict(test)
        .map_err(tree_failed)?
        .into_iter()
        .map(|c| c as usize)
        .collect())
}

/// A random subset of `0..n`: each row with probability `share`, at most
/// `cap` rows (the first `cap` of a shuffle otherwise).
fn subsample(n: usize, share: f64, cap: usize, rng: &mut ChaCha8Rng) -> Vec<usize> {
    use rand::seq::SliceRandom;
    let mut rows: Vec<usize> = (0..n).filter(|_| rng.random_bool(share)).collect();
    if rows.len() > cap {
        rows.shuffle(rng);
        rows.truncate(cap);
        rows.sort_unstable();
    }
    rows
}

fn subset(train: &Prepared, rows: &[usize], cols: &[usize]) -> (Array2<f64>, Array1<usize>) {
    (
        train.features.select(Axis(0), rows).select(Axis(1), cols),
        Array1::from(rows.iter().map(|&r| train.labels[r]).collect::<Vec<_>>()),
    )
}

fn trees(
    train: &Prepared,
    test: &Prepared,
    count: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Classifier>> {
    let (n, p) = train.features.dim();
    let cols: Vec<usize> = (0..p).collect();
    let rows_to_predict = dense(&test.features)?;
    (0..count)
        .map(|i| {
            let depth = 1 + i % 8;
            let split = [2, 20, 200][(i / 8) % 3];
            let rows = subsample(n, 1.0, TREE_ROWS, rng);
            let (x, y) = subset(train, &rows, &cols);
            Ok(Classifier {
                name: format!("tree-d{depth}-s{split}-{i}"),
                predictions: tree(&x, &y, None, depth, split, &rows_to_predict)?,
            })
        })
        .collect()
}

fn weighted_trees(
    train: &Prepared,
    test: &Prepared,
    count: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Classifier>> {
    let (n, p) = train.features.dim();
    let cols: Vec<usize> = (0..p).collect();
    let rows_to_predict = dense(&test.features)?;
    (0..count)
        .map(|i| {
            let depth = 2 + i % 6;
            let w: Vec<usize> = (0..train.classes)
                .map(|_| rng.random_range(1..=4))
                .collect();
            let rows = subsample(n, 1.0, TREE_ROWS, rng);
            let (x, y) = subset(train, &rows, &cols);
            let copies: Vec<usize> = y.iter().map(|&c| w[c]).collect();
            Ok(Classifier {
                name: format!("weighted-tree-d{depth}-{i}"),
                predictions: tree(&x, &y, Some(&copies), depth, 2, &rows_to_predict)?,
            })
        })
        .collect()
}

fn subspace_trees(
    train: &Prepared,
    test: &Prepared,
    count: usize,
    rng: &mut ChaCha8Rng,
) -> Result<Vec<Classifier>> {
    let (n, p) = train.features.dim();
    (0..count)
        .map(|i| {
            let depth = 3 + i % 6;
            let rows = subsample(n, 0.5, TREE_ROWS, rng);
            let mut cols: Vec<usize> = (0..p).filter(|_| rng.random_bool(0.5)).collect();
            if cols.is_empty() {
                cols.push(rng.random_range(0..p));
            }
            let (x, y) = subset(train, &rows, &cols);
            Ok(Classifier {
                name: format!("subspace-tree-d{depth}-{i}"),
                predictions: tree(
                    &x,
                    &y,
                    None,
                    depth,
                    2,
                    &dense(&test.features.select(Axis(1), &cols))?,
                )?,
            })
        })
        .collect()
}

/// Writes a predictions CSV (the input of `elicit rank`): one column per
/// classifier with its predicted class, then `label` and, when `groups` is
/// given, `group`.
///
/// # Errors
/// [`Error::Io`] when the file cannot be written; [`Error::InvalidArgument`]
/// when a classifier's predictions do not have one entry per label.
pub fn write_predictions(
    path: &Path,
    pool: &[Classifier],
    labels: &[usize],
    groups: Option<&[usize]>,
) -> Result<()> {
    let io = |e: std::io::Error| Error::Io {
        path: path.display().to_string(),
        message: e.to_string(),
    };
    if let Some(c) = pool.iter().find(|c| c.predictions.len() != labels.len()) {
        return Err(Error::invalid(
            "pool",
            format!(
                "{} has {} predictions for {} rows",
                c.name,
                c.predictions.len(),
                labels.len()
            ),
        ));
    }
    let mut out = std::io::BufWriter::new(std::fs::File::create(path).map_err(io)?);
    let mut header: Vec<&str> = pool.iter().map(|c| c.name.as_str()).collect();
    header.push("label");
    if groups.is_some() {
        header.push("group");
    }
    writeln!(out, "{}", header.join(",")).map_err(io)?;
    for (r, y) in labels.iter().enumerate() {
        let mut line: Vec<String> = pool.iter().map(|c| c.predictions[r].to_string()).collect();
        line.push(y.to_string());
        if let Some(g) = groups {
            line.push(g[r].to_string());
        }
        writeln!(out, "{}", line.join(",")).map_err(io)?;
    }
    out.flush().map_err(io)
}
