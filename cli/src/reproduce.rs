//! `elicit reproduce`: runs the library's reproduction jobs at the chosen
//! precision and writes `report.md`, `results.json` and the SVG figures.

use metric_elicitation::Error;
use metric_elicitation_lab::reproduce::noise::Way;
use metric_elicitation_lab::reproduce::shard::{Part, Shard};
use metric_elicitation_lab::reproduce::{self, Options, Progress, Section};
use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// Runs the selected jobs at the precision `bits` names (`None`: f64). On
/// stderr, a line per job as it starts and as it ends (its time and
/// verdict), whether stderr is a terminal or a file; on a terminal the
/// start line carries an estimate of the time left (from the jobs done so
/// far, which vary widely in length: a rough guide).
pub fn run_at(o: &Options, bits: Option<u32>) -> Result<Vec<Section>, Error> {
    let terminal = std::io::stderr().is_terminal();
    let start = Instant::now();
    let sections = reproduce::run_at_precision(o, bits, &mut |p| match p {
        Progress::Started { id, index, total } => {
            let eta = if terminal && index > 0 {
                let per_job = start.elapsed().as_secs_f64() / index as f64;
                format!(
                    ", about {} left",
                    duration((total - index) as f64 * per_job)
                )
            } else {
                String::new()
            };
            say!("[{}/{total}] {id} started{eta}", index + 1);
        }
        Progress::Finished {
            section,
            index,
            total,
        } => {
            say!(
                "[{}/{total}] {} done in {}: {}",
                index + 1,
                section.id,
                duration(section.seconds),
                section.verdict
            );
        }
        Progress::Shared { .. } => shared(p),
    })?;
    Ok(sections)
}

/// The line of a shard's share of a job.
fn shared(p: Progress<'_>) {
    if let Progress::Shared {
        id,
        what,
        seconds,
        index,
        total,
    } = p
    {
        say!(
            "[{}/{total}] {id}: {what} in {}",
            index + 1,
            duration(seconds)
        );
    }
}

/// The command line a single run records in report.md (a merge writes the
/// same); `--engines` only when it selects fewer than every elicitation,
/// `--particles` only when given.
pub fn command_line(precision: &str, o: &Options) -> String {
    let mut line = format!(
        "elicit reproduce --precision {precision} --search {} --trials {} --seed {}",
        o.search.name(),
        o.trials,
        o.seed
    );
    if o.engines != Way::ALL {
        line.push_str(&format!(" --engines {}", Way::list(&o.engines)));
    }
    if let Some(n) = o.particles {
        line.push_str(&format!(" --particles {n}"));
    }
    line
}

/// `reproduce --shard I/N`: runs the part and writes `shard-I-of-N.cbor`
/// into `out`.
pub fn shard(o: &Options, precision: &str, part: Shard, out: &Path) -> Result<(), Error> {
    let bits = metric_elicitation::scalar::precision_bits(precision, "--precision")?;
    #[cfg(not(feature = "mpfr"))]
    if bits.is_some() {
        // Refused before anything is computed or created.
        return reproduce::run_at_precision(o, bits, &mut |_| {}).map(|_| ());
    }
    crate::prepare_out(out)?;
    let written = reproduce::shard_at_precision(o, bits, precision, part, &mut |p| match p {
        Progress::Started { id, index, total } => say!("[{}/{total}] {id} started", index + 1),
        other => shared(other),
    })?;
    let path = out.join(Part::file_name(part));
    written.write(&path)?;
    outln!(
        "wrote {} (shard {part}); combine the {} shards with `elicit merge`",
        path.display(),
        part.count
    );
    Ok(())
}

/// `elicit merge`: reads the parts (folders of `shard-*.cbor` files, or
/// files), checks that they are the parts of one run, and writes what that
/// run writes.
pub fn merge(paths: &[PathBuf], out: &Path) -> Result<(), Error> {
    let mut files = Vec::new();
    for path in paths {
        if path.is_dir() {
            let entries = std::fs::read_dir(path).map_err(|e| Error::Io {
                path: path.display().to_string(),
                message: e.to_string(),
            })?;
            let mut found: Vec<PathBuf> = entries
                .flatten()
                .map(|e| e.path())
                .filter(|p| {
                    p.extension().is_some_and(|x| x == "cbor")
                        && p.file_name()
                            .is_some_and(|n| n.to_string_lossy().starts_with("shard-"))
                })
                .collect();
            if found.is_empty() {
                return Err(Error::Io {
                    path: path.display().to_string(),
                    message: "holds no shard-*.cbor file of `elicit reproduce --shard`".into(),
                });
            }
            found.sort();
            files.extend(found);
        } else {
            files.push(path.clone());
        }
    }
    let mut parts = files
        .iter()
        .map(|f| Ok((f.display().to_string(), Part::read(f)?)))
        .collect::<Result<Vec<_>, Error>>()?;
    crate::prepare_out(out)?;
    let (o, sections) = reproduce::merge_parts(&mut parts, &mut |p| {
        if let Progress::Finished {
            section,
            index,
            total,
        } = p
        {
            say!(
                "[{}/{total}] {} merged: {}",
                index + 1,
                section.id,
                section.verdict
            );
        }
    })?;
    let precision = &parts[0].1.precision;
    let command = command_line(precision, &o);
    crate::write_reproduction(&sections, out, &command)
}

/// Seconds as "12.3 s", "4 min 5 s" or "1 h 2 min".
fn duration(seconds: f64) -> String {
    if seconds < 60.0 {
        format!("{seconds:.1} s")
    } else if seconds < 3600.0 {
        format!(
            "{} min {} s",
            (seconds / 60.0) as u64,
            (seconds % 60.0) as u64
        )
    } else {
        format!(
            "{} h {} min",
            (seconds / 3600.0) as u64,
            ((seconds % 3600.0) / 60.0) as u64
        )
    }
}
