//! Giving the allocator's free memory back to the system: after the first
//! index, and while the search index is built. A cold first scan of a
//! large store holds every log's scanner, partial views and the walk's
//! lists; once the index is built most of that is freed (the old logs'
//! scanners are let go for their records,
//! `store::index_cache::save_and_release`), but glibc keeps freed chunks
//! in the middle of its heap resident: at 100,000 logs the server stayed
//! at 100 MiB where the same index started from the cache took 67 MiB
//! (docs/performance.md). `malloc_trim` returns those pages. The search
//! index's writer calls it after each commit (every 500 sessions) and
//! every 16 MiB of text: what it read and indexed since is freed by then,
//! and left resident it kept the language server 25–30 MiB above what the
//! heap held through a build of 100,000 sessions (issue 29 item 6); the
//! server calls it once more when the build is done. Its own module,
//! below every layer: the live index (after its first index) and the
//! search writer both call it.

/// Returns the heap's free pages to the system (glibc); elsewhere nothing.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
pub fn give_back_freed() {
    extern "C" {
        fn malloc_trim(pad: usize) -> i32;
    }
    // SAFETY: `malloc_trim` takes the allocator's own locks and only
    // releases pages of chunks that are free; any thread may call it.
    unsafe {
        malloc_trim(0);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
pub fn give_back_freed() {}
