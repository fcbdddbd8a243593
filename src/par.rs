//! Data parallelism over blocks of rows: rayon's parallel iterators with
//! the `rayon` feature, and without it the same iterators run in order on
//! one thread. Every use collects or writes block results in block order,
//! so the results are the same bits either way.

#[cfg(feature = "rayon")]
pub(crate) use rayon::prelude::*;

/// `par_chunks` and `par_chunks_mut` as sequential chunks (no `rayon`).
#[cfg(not(feature = "rayon"))]
pub(crate) trait ParallelSlice<T> {
    /// `chunks(n)`.
    fn par_chunks(&self, n: usize) -> std::slice::Chunks<'_, T>;
    /// `chunks_mut(n)`.
    fn par_chunks_mut(&mut self, n: usize) -> std::slice::ChunksMut<'_, T>;
}

#[cfg(not(feature = "rayon"))]
impl<T> ParallelSlice<T> for [T] {
    fn par_chunks(&self, n: usize) -> std::slice::Chunks<'_, T> {
        self.chunks(n)
    }
    fn par_chunks_mut(&mut self, n: usize) -> std::slice::ChunksMut<'_, T> {
        self.chunks_mut(n)
    }
}

/// `into_par_iter` as `into_iter` (no `rayon`).
#[cfg(not(feature = "rayon"))]
pub(crate) trait IntoParallelIterator: IntoIterator + Sized {
    /// `into_iter()`.
    fn into_par_iter(self) -> Self::IntoIter {
        self.into_iter()
    }
}

#[cfg(not(feature = "rayon"))]
impl<I: IntoIterator> IntoParallelIterator for I {}
