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
//! * `tree`: `linfa-trees` CART (Gini) of depth 1…8 with minimum split
//!   weights 2, 20, 200;
//! * `weighted-tree`: CART of depth 2…7 with integer class sample weights
//!   in 1…4 (integers keep linfa-trees' f32 weight sums exact; fractional
//!   weights can drive a node's remaining weight to ≤ 0, where it panics);
//! * `subspace-tree`: CART of depth 3…8 on a random half of S1's rows and
//!   a random half of the features (a random-subspace ensemble's members).
//!
//! linfa-trees scans every training row at every node, so each tree is
//! trained on a random subsample of at most [`TREE_ROWS`] rows of S1 (the
//! logistic members use all of S1). Every random choice comes from one
//! seed.

use super::{fit_eta, Prepared, Regularization};
use crate::error::{Error, Result};
use linfa::traits::{Fit, Predict};
use ndarray::{Array1, Array2, Axis};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
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

/// Index of the largest value (the first on ties).
pub fn argmax(values: impl Iterator<Item = f64>) -> usize {
    let mut best = (0, f64::NEG_INFINITY);
    for (i, v) in values.enumerate() {
        if v > best.1 {
            best = (i, v);
        }
    }
    best.0
}

fn tree(
    x: Array2<f64>,
    y: Array1<usize>,
    weights: Option<Array1<f32>>,
    depth: usize,
    min_split: f32,
    test: &Array2<f64>,
) -> Result<Vec<usize>> {
    let mut data = linfa::Dataset::new(x, y);
    if let Some(w) = weights {
        data = data.with_weights(w);
    }
    let model = linfa_trees::DecisionTree::params()
        .max_depth(Some(depth))
        .min_weight_split(min_split)
        .fit(&data)
        .map_err(|e| Error::invalid("pool", format!("decision tree: {e}")))?;
    Ok(model.predict(test).to_vec())
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
    (0..count)
        .map(|i| {
            let depth = 1 + i % 8;
            let split = [2.0, 20.0, 200.0][(i / 8) % 3];
            let rows = subsample(n, 1.0, TREE_ROWS, rng);
            let (x, y) = subset(train, &rows, &cols);
            Ok(Classifier {
                name: format!("tree-d{depth}-s{split}-{i}"),
                predictions: tree(x, y, None, depth, split, &test.features)?,
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
    (0..count)
        .map(|i| {
            let depth = 2 + i % 6;
            let w: Vec<f32> = (0..train.classes)
                .map(|_| f32::from(rng.random_range(1u8..=4)))
                .collect();
            let rows = subsample(n, 1.0, TREE_ROWS, rng);
            let (x, y) = subset(train, &rows, &cols);
            let weights = y.iter().map(|&c| w[c]).collect();
            Ok(Classifier {
                name: format!("weighted-tree-d{depth}-{i}"),
                predictions: tree(x, y, Some(weights), depth, 2.0, &test.features)?,
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
                    x,
                    y,
                    None,
                    depth,
                    2.0,
                    &test.features.select(Axis(1), &cols),
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
