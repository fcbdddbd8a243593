//! What fits in memory: a size is checked before it is allocated, so that a
//! spec asking for more than the machine holds is refused with one line
//! naming its field instead of aborting in the allocator.

use crate::error::{Error, Result};

/// The memory available to a new allocation, in bytes: `MemAvailable` of
/// `/proc/meminfo` on Linux; `None` where it cannot be read (the check is
/// then only against the address space).
pub(crate) fn available() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/meminfo").ok()?;
    let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    kib.checked_mul(1024)
}

/// Refuses `bytes` (or an overflowing size, `None`) when it is more than
/// half the memory available (the rest is for what the run builds beside
/// it), naming `field` and saying what fits: `unit` bytes per unit of
/// `field`.
///
/// # Errors
/// [`Error::InvalidArgument`] naming `field`.
pub(crate) fn check(field: &str, what: &str, bytes: Option<u64>, unit: u64) -> Result<()> {
    let gb = |b: u64| b as f64 / 1e9;
    let available = available();
    match (bytes, available) {
        (None, _) => Err(Error::invalid(
            field,
            format!("{what} overflows the address space"),
        )),
        (Some(b), Some(a)) if b > a / 2 => Err(Error::invalid(
            field,
            format!(
                "{what} needs {:.1} GB, more than half of the {:.1} GB of memory available: at most about {} fit",
                gb(b),
                gb(a),
                a / 2 / unit.max(1)
            ),
        )),
        _ => Ok(()),
    }
}
