//! Shards of a reproduction and their byte-identical merge.
//!
//! `elicit reproduce --shard I/N` runs the I-th of N disjoint parts of the
//! selected jobs and writes a [`Part`]; `elicit merge` combines the N parts
//! into the `results.json`, `report.md` and figures a single run writes.
//!
//! The unit of a shard is an *item* of a sweep: every sweep maps its
//! settings (or cells) through [`sharded_map`], each item with its own
//! seeded generator, so an item's result does not depend on which process
//! computes it. A shard computes the items it owns (item `i` of the job at
//! position `j` of the run belongs to shard `(i + j) mod N`) and records
//! them, lossless (CBOR: NaN and every bit of a double survive); the merge
//! runs each sweep's own code again with every item's recorded result in
//! place of the computation, so the rows are assembled by the same code, in
//! the same order, as in a single run. A job that is not a sweep (a table,
//! a real-data experiment) is one item, run whole by shard `j mod N`.
//!
//! A sweep may call [`sharded_map`] several times; the results of one call
//! must not feed the items of a later call (in a shard the items it does
//! not own hold `R::default()`). The merge test (`cli/tests/shards.rs`)
//! compares merged and single runs byte for byte.

use super::{parallel_map, Row};
use metric_elicitation::error::{Error, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::cell::RefCell;

/// The version of the [`Part`] layout; parts of another version are
/// refused.
pub const FORMAT: u32 = 1;

/// The identity of the sources that compute the rows (a hash of the
/// library's, the lab's and the test kit's sources, of the data and text the
/// lab compiles in, and of `Cargo.lock`, taken when the lab is built by
/// `lab/build.rs`), with the crate version. Parts written by
/// different sources are refused by the merge.
pub fn build_id() -> String {
    format!(
        "metric-elicitation {} sources {}",
        env!("CARGO_PKG_VERSION"),
        env!("LAB_SOURCES_HASH")
    )
}

/// Which part of a run: the `index`-th (0-based) of `count`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Shard {
    /// 0-based index, below `count`.
    pub index: usize,
    /// Number of parts.
    pub count: usize,
}

impl Shard {
    /// Parses `I/N` with 1 ≤ I ≤ N (as Slurm's and GNU parallel's 1-based
    /// counters give them).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming `--shard` and what was expected.
    pub fn parse(text: &str) -> Result<Self> {
        let bad = |why: &str| Error::invalid("--shard", format!("{text:?}: {why}"));
        let (i, n) = text
            .split_once('/')
            .ok_or_else(|| bad("expected I/N, e.g. 2/7 for the second of seven parts"))?;
        let i: usize = i
            .trim()
            .parse()
            .map_err(|_| bad("I is not a whole number"))?;
        let n: usize = n
            .trim()
            .parse()
            .map_err(|_| bad("N is not a whole number"))?;
        if n == 0 || i == 0 || i > n {
            return Err(bad("expected 1 <= I <= N"));
        }
        Ok(Shard {
            index: i - 1,
            count: n,
        })
    }

    /// Whether this shard runs the whole job at position `job` of the run.
    pub fn owns_job(&self, job: usize) -> bool {
        job % self.count == self.index
    }

    /// Whether this shard computes item `item` of the job at position `job`.
    pub fn owns_item(&self, job: usize, item: usize) -> bool {
        (item + job) % self.count == self.index
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index + 1, self.count)
    }
}

/// One [`sharded_map`] call of a sweep as a shard recorded it: the number
/// of items and the results of the items the shard owns.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    /// Items of the call (the same in every shard).
    pub items: usize,
    /// `(item, result)` for every item the shard computed.
    pub results: Vec<(usize, ciborium::Value)>,
}

/// What a shard holds of one job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Content {
    /// Nothing: a job another shard runs whole.
    Nothing,
    /// The rows of a job this shard ran whole.
    Rows(Vec<Row>),
    /// The items of a sweep's calls this shard computed.
    Calls(Vec<Call>),
}

/// One job's share in a [`Part`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct PartJob {
    /// The job's id.
    pub id: String,
    /// Wall time this shard spent on the job, seconds.
    pub seconds: f64,
    /// What the shard computed.
    pub content: Content,
}

/// A shard's partial result: the settings it ran with and its share of
/// every selected job.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Part {
    /// [`FORMAT`].
    pub format: u32,
    /// [`build_id`] of the program that wrote it.
    pub build: String,
    /// `--precision` (`f64`, `mpfr:256`).
    pub precision: String,
    /// `--only` filters.
    pub only: Vec<String>,
    /// `--search` by name.
    pub search: String,
    /// `--trials`.
    pub trials: usize,
    /// `--seed`.
    pub seed: u64,
    /// `--engines` (the noise jobs' elicitations, comma-separated names).
    #[serde(default = "every_engine")]
    pub engines: String,
    /// `--particles` of the noise jobs' engine (`None`: its default; also
    /// a part written before the option).
    #[serde(default)]
    pub particles: Option<usize>,
    /// Which part.
    pub shard: Shard,
    /// Every selected job, in run order.
    pub jobs: Vec<PartJob>,
}

/// `--engines` of a part written before the option: every elicitation.
fn every_engine() -> String {
    super::noise::Way::list(&super::noise::Way::ALL)
}

impl Part {
    /// The file name of a part in a folder: `shard-I-of-N.cbor` (1-based).
    pub fn file_name(shard: Shard) -> String {
        format!("shard-{}-of-{}.cbor", shard.index + 1, shard.count)
    }

    /// Writes the part (CBOR) to `path`.
    ///
    /// # Errors
    /// [`Error::Io`] naming the file.
    pub fn write(&self, path: &std::path::Path) -> Result<()> {
        let io = |message: String| Error::Io {
            path: path.display().to_string(),
            message,
        };
        let mut bytes = Vec::new();
        ciborium::into_writer(self, &mut bytes).map_err(|e| io(e.to_string()))?;
        // Written beside and renamed: a killed shard leaves no half part.
        let partial = path.with_extension("cbor.partial");
        std::fs::write(&partial, &bytes).map_err(|e| io(e.to_string()))?;
        std::fs::rename(&partial, path).map_err(|e| io(e.to_string()))
    }

    /// Reads a part written by [`Part::write`].
    ///
    /// # Errors
    /// [`Error::Io`] naming the file when it cannot be read or is not a
    /// part of this format.
    pub fn read(path: &std::path::Path) -> Result<Self> {
        let io = |message: String| Error::Io {
            path: path.display().to_string(),
            message,
        };
        let bytes = std::fs::read(path).map_err(|e| io(e.to_string()))?;
        let part: Part = ciborium::from_reader(bytes.as_slice())
            .map_err(|e| io(format!("not a shard of `elicit reproduce --shard`: {e}")))?;
        if part.format != FORMAT {
            return Err(io(format!(
                "shard format {} (this build reads {FORMAT})",
                part.format
            )));
        }
        Ok(part)
    }
}

/// The state of the thread that runs a job of a shard or a merge.
enum Active {
    Shard {
        shard: Shard,
        job: usize,
        calls: Vec<Call>,
    },
    Replay {
        calls: Vec<Call>,
        next: usize,
    },
}

thread_local! {
    // Only the thread running a job sees it; rayon's workers (and every
    // other run in the same process) map plainly.
    static ACTIVE: RefCell<Option<Active>> = const { RefCell::new(None) };
}

/// Runs `f` as job `job` of shard `shard`: its [`sharded_map`] calls
/// compute only the shard's items. Returns `f`'s value and the calls.
pub(crate) fn in_shard<X>(shard: Shard, job: usize, f: impl FnOnce() -> X) -> (X, Vec<Call>) {
    ACTIVE.with(|a| {
        *a.borrow_mut() = Some(Active::Shard {
            shard,
            job,
            calls: Vec::new(),
        })
    });
    let value = f();
    let calls = match ACTIVE.with(|a| a.borrow_mut().take()) {
        Some(Active::Shard { calls, .. }) => calls,
        _ => Vec::new(),
    };
    (value, calls)
}

/// Runs `f` with every [`sharded_map`] call answered from `calls`, in
/// order. Returns `f`'s value and how many calls were consumed.
pub(crate) fn replaying<X>(calls: Vec<Call>, f: impl FnOnce() -> X) -> (X, usize) {
    ACTIVE.with(|a| *a.borrow_mut() = Some(Active::Replay { calls, next: 0 }));
    let value = f();
    let used = match ACTIVE.with(|a| a.borrow_mut().take()) {
        Some(Active::Replay { next, .. }) => next,
        _ => 0,
    };
    (value, used)
}

/// What the current thread is doing, copied out of the thread-local.
enum Mode {
    Plain,
    Shard(Shard, usize),
    Replay(Call),
}

/// [`parallel_map`] for the items of a sweep, which a shard splits: in a
/// plain run it is `parallel_map`; in a shard it computes the shard's items
/// (the others hold `R::default()`) and records them; in a merge it returns
/// the recorded results without computing anything.
///
/// # Errors
/// The first error of `f`; in a merge, a recorded call that does not match
/// this one (an internal error: the parts come from other code).
pub fn sharded_map<I: Sync, R: Send + Serialize + DeserializeOwned + Default>(
    items: &[I],
    f: impl Fn(&I) -> Result<R> + Sync + Send,
) -> Result<Vec<R>> {
    let mode = ACTIVE.with(|a| match &mut *a.borrow_mut() {
        None => Mode::Plain,
        Some(Active::Shard { shard, job, .. }) => Mode::Shard(*shard, *job),
        Some(Active::Replay { calls, next }) => {
            // Taken, not copied: a call of a large sweep holds every
            // recorded result.
            let call = calls.get_mut(*next).map(|c| {
                std::mem::replace(
                    c,
                    Call {
                        items: 0,
                        results: Vec::new(),
                    },
                )
            });
            *next += 1;
            call.map_or(Mode::Plain, Mode::Replay)
        }
    });
    let internal = |message: String| Error::invalid("shards", message);
    match mode {
        Mode::Plain => parallel_map(items, f),
        Mode::Shard(shard, job) => {
            let own: Vec<usize> = (0..items.len())
                .filter(|&i| shard.owns_item(job, i))
                .collect();
            let computed = parallel_map(&own, |&i| f(&items[i]))?;
            let mut out: Vec<R> = (0..items.len()).map(|_| R::default()).collect();
            let mut results = Vec::with_capacity(own.len());
            for (&i, r) in own.iter().zip(computed) {
                results.push((
                    i,
                    ciborium::Value::serialized(&r).map_err(|e| internal(e.to_string()))?,
                ));
                out[i] = r;
            }
            ACTIVE.with(|a| {
                if let Some(Active::Shard { calls, .. }) = &mut *a.borrow_mut() {
                    calls.push(Call {
                        items: items.len(),
                        results,
                    });
                }
            });
            Ok(out)
        }
        Mode::Replay(call) => {
            if call.items != items.len() || call.results.len() != items.len() {
                return Err(internal(format!(
                    "a recorded call has {} of {} items where this one has {}",
                    call.results.len(),
                    call.items,
                    items.len()
                )));
            }
            call.results
                .into_iter()
                .enumerate()
                .map(|(i, (at, value))| {
                    if at != i {
                        return Err(internal(format!("item {i} recorded as {at}")));
                    }
                    value.deserialized().map_err(|e| internal(e.to_string()))
                })
                .collect()
        }
    }
}

/// Combines the calls the shards recorded for one job into complete calls
/// (every item once), in call order.
///
/// # Errors
/// [`Error::InvalidArgument`] naming the job when the shards' calls disagree (a
/// different count of calls or items) or an item is missing or repeated.
pub(crate) fn combine_calls(id: &str, shares: Vec<Vec<Call>>) -> Result<Vec<Call>> {
    let bad = |message: String| Error::invalid("merge", format!("job {id}: {message}"));
    let Some(count) = shares.first().map(Vec::len) else {
        return Ok(Vec::new());
    };
    if shares.iter().any(|s| s.len() != count) {
        return Err(bad(
            "the shards made different numbers of sweep calls".into()
        ));
    }
    let mut combined: Vec<Vec<Option<ciborium::Value>>> = Vec::new();
    let mut sizes = Vec::new();
    for call in &shares[0] {
        sizes.push(call.items);
        combined.push(vec![None; call.items]);
    }
    for share in shares {
        for (c, call) in share.into_iter().enumerate() {
            if call.items != sizes[c] {
                return Err(bad(format!(
                    "call {} has {} items in one shard and {} in another",
                    c + 1,
                    sizes[c],
                    call.items
                )));
            }
            for (i, value) in call.results {
                match combined[c].get_mut(i) {
                    Some(slot @ None) => *slot = Some(value),
                    Some(Some(_)) => {
                        return Err(bad(format!(
                            "item {} of call {} is in two shards",
                            i,
                            c + 1
                        )))
                    }
                    None => return Err(bad(format!("item {i} of call {} out of range", c + 1))),
                }
            }
        }
    }
    combined
        .into_iter()
        .enumerate()
        .map(|(c, slots)| {
            let items = slots.len();
            let results = slots
                .into_iter()
                .enumerate()
                .map(|(i, v)| {
                    v.map(|v| (i, v))
                        .ok_or_else(|| bad(format!("item {} of call {} is in no shard", i, c + 1)))
                })
                .collect::<Result<Vec<_>>>()?;
            Ok(Call { items, results })
        })
        .collect()
}

/// Checks that `parts` (each with the name of its file) are the N parts
/// of one run: the same format, build and options, every shard once.
/// Returns the first part.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `merge`, the files and what differs.
pub fn check_parts(parts: &[(String, Part)]) -> Result<&Part> {
    let bad = |message: String| Error::invalid("merge", message);
    let Some((first_name, first)) = parts.first() else {
        return Err(bad("no shards given".into()));
    };
    for (name, part) in parts {
        let differs = |what: &str, a: String, b: String| {
            bad(format!(
                "{name} and {first_name} differ in {what}: {a} against {b}; they are not parts of one run"
            ))
        };
        if part.build != first.build {
            return Err(differs("build", part.build.clone(), first.build.clone()));
        }
        if part.precision != first.precision {
            return Err(differs(
                "--precision",
                part.precision.clone(),
                first.precision.clone(),
            ));
        }
        if part.only != first.only {
            return Err(differs("--only", part.only.join(","), first.only.join(",")));
        }
        if part.search != first.search {
            return Err(differs(
                "--search",
                part.search.clone(),
                first.search.clone(),
            ));
        }
        if part.trials != first.trials {
            return Err(differs(
                "--trials",
                part.trials.to_string(),
                first.trials.to_string(),
            ));
        }
        if part.seed != first.seed {
            return Err(differs(
                "--seed",
                part.seed.to_string(),
                first.seed.to_string(),
            ));
        }
        if part.engines != first.engines {
            return Err(differs(
                "--engines",
                part.engines.clone(),
                first.engines.clone(),
            ));
        }
        if part.particles != first.particles {
            let name =
                |p: Option<usize>| p.map_or_else(|| "the default".to_string(), |n| n.to_string());
            return Err(differs(
                "--particles",
                name(part.particles),
                name(first.particles),
            ));
        }
        if part.shard.count != first.shard.count {
            return Err(differs(
                "the number of shards",
                part.shard.count.to_string(),
                first.shard.count.to_string(),
            ));
        }
    }
    let count = first.shard.count;
    for index in 0..count {
        let holders: Vec<&str> = parts
            .iter()
            .filter(|(_, p)| p.shard.index == index)
            .map(|(n, _)| n.as_str())
            .collect();
        match holders.len() {
            1 => {}
            0 => return Err(bad(format!("shard {} is missing", Shard { index, count }))),
            _ => {
                return Err(bad(format!(
                    "shard {} is given twice: {}",
                    Shard { index, count },
                    holders.join(" and ")
                )))
            }
        }
    }
    Ok(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every file the lab compiles in lies in a folder `lab/build.rs`
    /// hashes into [`build_id`] (`lab/data`, `lab/text`), so parts computed
    /// from other data or text are refused by the merge.
    #[test]
    fn every_compiled_in_file_is_in_the_build_identity() {
        let lab = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let hashed = [lab.join("data"), lab.join("text")];
        let mut stack = vec![lab.join("src")];
        let mut seen = 0;
        while let Some(dir) = stack.pop() {
            for entry in std::fs::read_dir(&dir).unwrap().flatten() {
                let path = entry.path();
                if path.is_dir() {
                    stack.push(path);
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                for macro_ in ["include_bytes!(\"", "include_str!(\""] {
                    for (at, _) in text.match_indices(macro_) {
                        let rest = &text[at + macro_.len()..];
                        let target = &rest[..rest.find('"').unwrap()];
                        let file = path.parent().unwrap().join(target);
                        let file = file.canonicalize().unwrap();
                        assert!(
                            hashed
                                .iter()
                                .any(|d| file.starts_with(d.canonicalize().unwrap())),
                            "{} compiles in {}: hash its folder in lab/build.rs",
                            path.display(),
                            file.display()
                        );
                        seen += 1;
                    }
                }
            }
        }
        assert!(seen >= 7, "found only {seen} compiled-in files");
    }

    #[test]
    fn shard_parses_one_based_and_refuses_the_rest() {
        assert_eq!(Shard::parse("2/7").unwrap(), Shard { index: 1, count: 7 });
        for bad in ["0/3", "4/3", "1/0", "a/3", "3", "1/b", ""] {
            let e = Shard::parse(bad).unwrap_err().to_string();
            assert!(e.contains("--shard"), "{bad}: {e}");
        }
    }

    #[test]
    fn every_item_has_exactly_one_owner() {
        for count in 1..8 {
            for job in 0..5 {
                for item in 0..20 {
                    let owners = (0..count)
                        .filter(|&index| Shard { index, count }.owns_item(job, item))
                        .count();
                    assert_eq!(owners, 1);
                }
            }
        }
    }

    #[test]
    fn a_sweep_split_in_shards_replays_to_the_plain_result() {
        let items: Vec<u64> = (0..11).collect();
        let f = |&x: &u64| -> Result<(f64, usize)> {
            Ok((
                if x == 3 { f64::NAN } else { (x as f64).sqrt() },
                x as usize,
            ))
        };
        let plain = sharded_map(&items, f).unwrap();
        let count = 3;
        let shares: Vec<Vec<Call>> = (0..count)
            .map(|index| {
                let (r, calls) = in_shard(Shard { index, count }, 1, || sharded_map(&items, f));
                r.unwrap();
                calls
            })
            .collect();
        let calls = combine_calls("t", shares.clone()).unwrap();
        let (replayed, used) = replaying(calls, || {
            sharded_map(&items, |_| -> Result<(f64, usize)> {
                panic!("a merge computes nothing")
            })
        });
        assert_eq!(used, 1);
        let replayed = replayed.unwrap();
        for (a, b) in plain.iter().zip(&replayed) {
            assert_eq!(a.0.to_bits(), b.0.to_bits());
            assert_eq!(a.1, b.1);
        }
        // A missing shard is named.
        let e = combine_calls("t", shares[..2].to_vec())
            .unwrap_err()
            .to_string();
        assert!(e.contains("in no shard"), "{e}");
        // A repeated one too.
        let mut twice = shares.clone();
        twice.push(shares[0].clone());
        let e = combine_calls("t", twice).unwrap_err().to_string();
        assert!(e.contains("two shards"), "{e}");
    }
}
