//! How a query point is shown to a person ([`View`]): the binary 2×2
//! confusion, a k-class diagonal confusion, a k×k matrix of mistakes,
//! rates and groups' rates, or plain coordinates.

pub use crate::driver::adapter::View;
use crate::error::{Error, Result};
use crate::geometry::groups::{rate_entry, GroupRates, Groups, Rates};
use crate::population::BinaryConfusion;
use crate::scalar::Scalar;
use nalgebra::DVector;

/// A diagonal confusion: each class's correct predictions, in % of all
/// cases.
pub fn diagonal<T: Scalar>(d: &DVector<T>) -> View {
    View {
        title: "correct predictions, % of all cases".into(),
        rows: d
            .iter()
            .enumerate()
            .map(|(i, v)| format!("class {} {:>8.2}", i + 1, 100.0 * v.to_f64_lossy()))
            .collect(),
    }
}

/// Off-diagonal entries (row-major, q = k² − k) as a k×k matrix of
/// mistakes (actual class by row, predicted by column), scaled by
/// `scale` (100 for % of all cases).
pub fn off_diagonal<T: Scalar>(z: &DVector<T>, k: usize, what: &str) -> View {
    let mut it = z.iter();
    let rows = (0..k)
        .map(|i| {
            let cells: Vec<String> = (0..k)
                .map(|j| {
                    if i == j {
                        "     -".to_string()
                    } else {
                        format!(
                            "{:>6.2}",
                            it.next().map_or(0.0, |v| 100.0 * v.to_f64_lossy())
                        )
                    }
                })
                .collect();
            format!("actual {} {}", i + 1, cells.join(" "))
        })
        .collect();
    View {
        title: format!("{what}: predicted 1..{k}"),
        rows,
    }
}

/// A point of an abstract query space: its coordinates.
pub fn coordinates<T: Scalar>(z: &DVector<T>) -> View {
    View {
        title: "coordinates".into(),
        rows: z
            .iter()
            .enumerate()
            .map(|(i, v)| format!("x{} {:>10.6}", i + 1, v.to_f64_lossy()))
            .collect(),
    }
}

/// The off-diagonal k of q = k² − k, if q is of that form.
pub fn classes_of(q: usize) -> Option<usize> {
    (2..=q).find(|k| k * k - k == q)
}

/// How a binary confusion is shown to a person: the 2×2 matrix in % of
/// all cases and the accuracy.
pub fn binary<T: Scalar>(c: &BinaryConfusion<T>, zeta: &T) -> View {
    let pct = |v: T| 100.0 * v.to_f64_lossy();
    let (tp, tn) = (pct(c.tp.clone()), pct(c.tn.clone()));
    let fnn = pct(zeta.clone() - c.tp.clone());
    let fp = pct(T::int(1) - zeta.clone() - c.tn.clone());
    View {
        title: "% of all cases    predicted 1  predicted 0".into(),
        rows: vec![
            format!("actual 1          {tp:>11.2} {fnn:>12.2}"),
            format!("actual 0          {fp:>11.2} {tn:>12.2}"),
            format!("accuracy          {:>11.2}%", tp + tn),
        ],
    }
}

/// Labels of the q rates of a query vector (diagonal: P(h = i | Y = i);
/// general: the off-diagonal P(h = j | Y = i) in row-major order).
///
/// # Errors
/// [`Error::InvalidArgument`] naming `rates` when general rates are asked
/// for a q that is not k² − k.
pub fn rate_labels(q: usize, rates: Rates) -> Result<Vec<String>> {
    match rates {
        Rates::Diagonal => Ok((0..q)
            .map(|i| format!("P(h = {0} | Y = {0})", i + 1))
            .collect()),
        Rates::General => {
            let k = (2..=64).find(|k| k * k - k == q).ok_or_else(|| {
                Error::invalid(
                    "rates",
                    format!("general rates need q = k^2 - k, got q = {q}"),
                )
            })?;
            Ok((0..q)
                .map(|idx| {
                    let (i, j) = rate_entry(k, idx).unwrap_or((0, 0));
                    format!("P(h = {} | Y = {})", j + 1, i + 1)
                })
                .collect())
        }
    }
}

/// One row per rate: its label and value in %.
pub fn percent_rows<T: Scalar>(labels: &[String], r: &DVector<T>) -> Vec<String> {
    labels
        .iter()
        .zip(r.iter())
        .map(|(l, v)| format!("{l:<18} {:>7.2}%", 100.0 * v.to_f64_lossy()))
        .collect()
}

/// Each group's rates, in % of each actual class.
pub fn groups_rates<T: Scalar>(groups: &Groups<T>, point: &GroupRates<T>) -> View {
    let labels = rate_labels(groups.dim(), groups.rates()).unwrap_or_default();
    let mut rows = Vec::new();
    for g in 0..point.groups() {
        rows.push(format!("group {}:", g + 1));
        rows.extend(
            percent_rows(&labels, &point.group(g).into_owned())
                .into_iter()
                .map(|r| format!("  {r}")),
        );
    }
    View {
        title: "rates of the classifier in each group, % of each actual class".into(),
        rows,
    }
}

/// A rate vector, in % of each actual class.
pub fn rates<T: Scalar>(point: &DVector<T>, rates: Rates) -> View {
    let labels = rate_labels(point.len(), rates).unwrap_or_default();
    View {
        title: "rates of the classifier, % of each actual class".into(),
        rows: percent_rows(&labels, point),
    }
}
