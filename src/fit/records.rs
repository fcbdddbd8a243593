//! The one CSV reader of the crate: every CSV input goes through
//! [`Records`] — the numeric tables η̂ is fitted on ([`super::Table`]), the
//! score files of finite populations ([`crate::population::csv_file`]),
//! and the predictions and attribute files `elicit rank` reads
//! ([`crate::driver::rank`]).
//!
//! A file has a header row; the reader
//! * decompresses a name ending in `.gz`;
//! * trims the spaces around cells and reads quoted cells and CRLF line
//!   ends (the `csv` crate);
//! * refuses a header that names a column twice (which of the two a name
//!   means would be a guess), naming the column;
//! * refuses a row with another number of cells than the header;
//! * names every problem by the file and its 1-based line (the header is
//!   line 1), counted from the bytes read (the `csv` crate's own line
//!   count is off after CRLF line ends and quoted line breaks), and by the
//!   column where one is concerned: `FILE:LINE: COLUMN = "TEXT" is not a
//!   number`, under the option or spec field that gave the file
//!   ([`Error::InvalidArgument`]).
//!
//! Records are read one at a time, so a large file is not held twice.

use crate::error::{Error, Result};
use crate::scalar::Scalar;
use std::collections::VecDeque;
use std::io::Read;
use std::path::Path;

/// Counts the line ends of the bytes read through it, so that a record's
/// byte offset can be turned into its line.
struct Lines<R> {
    inner: R,
    /// Bytes read so far.
    offset: u64,
    /// Offsets of the `\n` bytes not yet passed.
    newlines: VecDeque<u64>,
    /// Offsets of the `\r` bytes not yet passed.
    returns: VecDeque<u64>,
    /// `\n` bytes already passed.
    passed: u64,
}

impl<R: Read> Read for Lines<R> {
    fn read(&mut self, buf: &mut [u8]) -> std::io::Result<usize> {
        let n = self.inner.read(buf)?;
        for (i, b) in buf[..n].iter().enumerate() {
            match b {
                b'\n' => self.newlines.push_back(self.offset + i as u64),
                b'\r' => self.returns.push_back(self.offset + i as u64),
                _ => {}
            }
        }
        self.offset += n as u64;
        Ok(n)
    }
}

impl<R> Lines<R> {
    /// The 1-based line of the record starting at `byte`. Offsets only
    /// grow from one call to the next (records are read in order). The
    /// parser may report a record's start on the previous line's
    /// terminator, which is skipped first.
    fn line_of(&mut self, byte: u64) -> u64 {
        let mut at = byte;
        loop {
            while self.returns.front().is_some_and(|&r| r < at) {
                self.returns.pop_front();
            }
            while self.newlines.front().is_some_and(|&n| n < at) {
                self.newlines.pop_front();
                self.passed += 1;
            }
            let terminator =
                self.newlines.front() == Some(&at) || self.returns.front() == Some(&at);
            if !terminator {
                return self.passed + 1;
            }
            at += 1;
        }
    }
}

/// One record of a CSV file with its line.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The 1-based line the record starts on (the header is line 1).
    pub line: u64,
    cells: csv::StringRecord,
}

impl Record {
    /// The cell of column `column` (0-based; "" past the end).
    pub fn cell(&self, column: usize) -> &str {
        self.cells.get(column).unwrap_or("")
    }

    /// Whether every cell is empty (a line of commas).
    pub fn is_blank(&self) -> bool {
        self.cells.iter().all(str::is_empty)
    }
}

/// A CSV file read record by record (see the module docs).
pub struct Records<R: Read> {
    reader: csv::Reader<Lines<R>>,
    source: String,
    field: String,
    names: Vec<String>,
}

impl Records<Box<dyn Read>> {
    /// Opens `path`, decompressing a name ending in `.gz`; `field` (a spec
    /// field or a command-line option) names the file in errors.
    ///
    /// # Errors
    /// [`Error::Io`] when the file cannot be opened; as [`Records::new`].
    pub fn open(path: &Path, field: &str) -> Result<Self> {
        let file = std::fs::File::open(path).map_err(|e| Error::Io {
            path: path.display().to_string(),
            message: e.to_string(),
        })?;
        let source = path.display().to_string();
        let reader: Box<dyn Read> = if path.extension().is_some_and(|e| e == "gz") {
            Box::new(flate2::read::GzDecoder::new(file))
        } else {
            Box::new(file)
        };
        Records::new(reader, &source, field)
    }
}

impl<R: Read> Records<R> {
    /// Reads the header of the CSV text in `reader`; `source` names it in
    /// messages and `field` is the option or spec field errors are filed
    /// under.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] under `field`: no header row, an empty
    /// column name, or a name given twice (`FILE:1: column "x" appears
    /// twice (columns 2 and 5)`).
    pub fn new(reader: R, source: &str, field: &str) -> Result<Self> {
        let lines = Lines {
            inner: reader,
            offset: 0,
            newlines: VecDeque::new(),
            returns: VecDeque::new(),
            passed: 0,
        };
        let mut reader = csv::ReaderBuilder::new()
            .has_headers(true)
            .trim(csv::Trim::All)
            .from_reader(lines);
        let names: Vec<String> = reader
            .headers()
            .map_err(|e| bad(source, field, 1, &one_line(&e.to_string())))?
            .iter()
            .map(str::to_string)
            .collect();
        if names.is_empty() || names.iter().all(String::is_empty) {
            return Err(bad(source, field, 1, "no header row"));
        }
        for (i, name) in names.iter().enumerate() {
            if name.is_empty() {
                return Err(bad(
                    source,
                    field,
                    1,
                    &format!("column {} has no name", i + 1),
                ));
            }
            if let Some(j) = names[..i].iter().position(|n| n == name) {
                return Err(bad(
                    source,
                    field,
                    1,
                    &format!(
                        "column {name:?} appears twice (columns {} and {}): which one is meant would be a guess; rename one",
                        j + 1,
                        i + 1
                    ),
                ));
            }
        }
        Ok(Records {
            reader,
            source: source.to_string(),
            field: field.to_string(),
            names,
        })
    }
}

impl<R: Read> Records<R> {
    /// The column names, in file order.
    pub fn names(&self) -> &[String] {
        &self.names
    }

    /// The file's name as messages give it.
    pub fn source(&self) -> &str {
        &self.source
    }

    /// The index of column `name`; `field` names what asked for it.
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] under `field`: `FILE: no column "x"
    /// (columns: …)`.
    pub fn column(&self, name: &str, field: &str) -> Result<usize> {
        column_of(&self.names, &self.source, name, field)
    }

    /// The next record, `None` at the end of the file. Lines with no
    /// cells at all are skipped (the `csv` crate's rule); a line of empty
    /// cells is a record ([`Record::is_blank`]).
    ///
    /// # Errors
    /// [`Error::InvalidArgument`] naming the file and line: a record with
    /// another number of cells than the header, or text that is not UTF-8.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        let mut cells = csv::StringRecord::new();
        let read = self.reader.read_record(&mut cells);
        let line = |reader: &mut csv::Reader<Lines<R>>, byte: Option<u64>| {
            byte.map_or(0, |b| reader.get_mut().line_of(b))
        };
        match read {
            Ok(false) => Ok(None),
            Ok(true) => {
                let at = cells.position().map(csv::Position::byte);
                let line = line(&mut self.reader, at);
                if cells.len() != self.names.len() {
                    return Err(self.error(
                        line,
                        format!(
                            "{} cells for {} columns ({})",
                            cells.len(),
                            self.names.len(),
                            self.names.join(", ")
                        ),
                    ));
                }
                Ok(Some(Record { line, cells }))
            }
            Err(e) => {
                let at = e.position().map(csv::Position::byte);
                let line = line(&mut self.reader, at);
                let what = match e.kind() {
                    csv::ErrorKind::UnequalLengths {
                        expected_len, len, ..
                    } => format!(
                        "{len} cells for {expected_len} columns ({})",
                        self.names.join(", ")
                    ),
                    _ => one_line(&e.to_string()),
                };
                Err(self.error(line, what))
            }
        }
    }

    /// An error about line `line` of the file: `FILE:LINE: what`, under
    /// the reader's field.
    pub fn error(&self, line: u64, what: impl std::fmt::Display) -> Error {
        bad(&self.source, &self.field, line, &what.to_string())
    }

    /// The number in column `column` of `record`, read at the working
    /// precision ([`crate::scalar::Backend::decode`]: exactly, where the
    /// backend can).
    ///
    /// # Errors
    /// `FILE:LINE: COLUMN = "TEXT" is not a number` (or `is not finite`).
    pub fn number<T: Scalar>(&self, record: &Record, column: usize) -> Result<T> {
        let text = record.cell(column);
        let v = T::decode(text).map_err(|_| {
            self.error(
                record.line,
                format!("{} = {text:?} is not a number", self.names[column]),
            )
        })?;
        if v.finite() {
            Ok(v)
        } else {
            Err(self.error(
                record.line,
                format!("{} = {text} is not finite", self.names[column]),
            ))
        }
    }

    /// The non-negative integer code in column `column` of `record` (`3`
    /// or `3.0`), or `None` when the cell is not one.
    pub fn code(&self, record: &Record, column: usize) -> Option<usize> {
        let text = record.cell(column);
        text.parse::<usize>().ok().or_else(|| {
            text.parse::<f64>()
                .ok()
                .filter(|v| v.fract() == 0.0 && *v >= 0.0 && *v < 1e15)
                .map(|v| v as usize)
        })
    }
}

/// The index of column `name` among `names` of the file `source`, or
/// `FILE: no column "x" (columns: …)` under `field`.
pub(crate) fn column_of(names: &[String], source: &str, name: &str, field: &str) -> Result<usize> {
    names.iter().position(|n| n == name).ok_or_else(|| {
        Error::invalid(
            field,
            format!(
                "{source}: no column {name:?} (columns: {})",
                names.join(", ")
            ),
        )
    })
}

/// `FILE:LINE: what` under `field`.
fn bad(source: &str, field: &str, line: u64, what: &str) -> Error {
    Error::invalid(field, format!("{source}:{line}: {what}"))
}

/// The first line of a message (the `csv` crate's errors span several).
fn one_line(text: &str) -> String {
    text.lines().next().unwrap_or("").to_string()
}

/// Whether a cell means "missing" in a numeric table: empty, `?`, `NA`,
/// `na`, `NaN` or `nan`.
pub fn missing(cell: &str) -> bool {
    matches!(cell, "" | "?" | "NA" | "na" | "NaN" | "nan")
}
