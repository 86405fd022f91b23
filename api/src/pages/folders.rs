//! Compiled template folders as the server keeps them (loaded and shared by
//! [`crate::cache::Caches::folder`]: once per distinct set of files, however many tenants
//! use it), and where each one's renders run (inline, or on the blocking pool for a
//! template that keeps being slow).

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Duration;

use axum::http::HeaderValue;
use renderer::folder::{TemplateFiles, TemplateFolder};

/// A render slower than this moves its template's later renders off the async workers.
/// Generous, because under load the wall-clock time of a render includes preemption.
pub const INLINE_RENDER_LIMIT: Duration = Duration::from_millis(20);

/// How many slow renders in a row move a template off the async workers: not one, because
/// a process's first renders also pay one-time set-up (built-in partials, locale data), and
/// in a row, because a fast template's render is now and then preempted past the limit on
/// a busy machine, and over days such renders would add up.
pub const SLOW_RENDERS: u32 = 3;

/// How many renders within the limit in a row, on the blocking pool, bring a template back
/// to the async workers: many, so that a template that is slow now and then does not move
/// back and forth, yet one held up once by a long overload does not pay a thread handoff
/// on every render for good.
pub const FAST_RENDERS_BACK: u32 = 1000;

/// A compiled template folder, with the ETags of its public files computed once (hashing a
/// file on every request would cost more than sending it).
pub struct LoadedFolder {
    pub folder: Arc<TemplateFolder>,
    /// The bytes of the template files it was compiled from, and of those its public
    /// files (its cache weight).
    source_bytes: u64,
    public_bytes: u64,
    pub(crate) etags: HashMap<String, HeaderValue>,
    /// Whether this folder's renders have moved to the blocking pool (for every tenant
    /// sharing the folder: the same template renders alike for all of them).
    pub(crate) slow_renders: SlowRenders,
}

/// Where one folder's renders run, from the latest renders in a row: below
/// [`SLOW_RENDERS`], inline on the async workers, the count being the slow renders in a row;
/// from it on, on the blocking pool, the count less [`SLOW_RENDERS`] being the renders
/// within the limit in a row there, until [`FAST_RENDERS_BACK`] of them bring it back.
#[derive(Default)]
pub(crate) struct SlowRenders(AtomicU32);

/// A move of a folder's renders (for the log).
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Moved {
    ToPool,
    Back,
}

impl SlowRenders {
    pub(crate) fn is_slow(&self) -> bool {
        self.0.load(Ordering::Relaxed) >= SLOW_RENDERS
    }

    /// Counts a render, `slow` or not, and says when this one moved the folder. (Renders
    /// running at the same time may interleave their counts; the rules only need to tell a
    /// template that keeps being slow, or fast, from one held up now and then.)
    pub(crate) fn record(&self, slow: bool) -> Option<Moved> {
        // Unchanged counts are not written: the fast render of an inline template, the
        // usual case, then costs one shared load.
        let before = match self
            .0
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                let next = next_count(n, slow);
                (next != n).then_some(next)
            }) {
            Ok(n) | Err(n) => n,
        };
        match (before < SLOW_RENDERS, next_count(before, slow)) {
            (true, next) if next == SLOW_RENDERS => Some(Moved::ToPool),
            (false, 0) => Some(Moved::Back),
            _ => None,
        }
    }
}

/// The count of [`SlowRenders`] after a render, `slow` or not, at count `n`.
fn next_count(n: u32, slow: bool) -> u32 {
    match (n < SLOW_RENDERS, slow) {
        (true, true) => n + 1,
        (true, false) => 0,
        (false, true) => SLOW_RENDERS,
        (false, false) if n - SLOW_RENDERS + 1 >= FAST_RENDERS_BACK => 0,
        (false, false) => n + 1,
    }
}

impl LoadedFolder {
    pub(crate) fn is_slow(&self) -> bool {
        self.slow_renders.is_slow()
    }

    /// Compiles a template version's files into what the folder cache holds (CPU-bound:
    /// run it off the async workers).
    pub fn compile(files: Vec<tenants::TemplateFile>) -> LoadedFolder {
        let own: u64 = files
            .iter()
            .map(|f| (f.path.len() + f.content.len()) as u64)
            .sum();
        // The platform's partials are compiled into every folder that has no block of their
        // name, so they weigh as its own source does.
        let platform: u64 = renderer::folder::PLATFORM_PARTIALS
            .iter()
            .filter(|(name, _)| {
                let path = format!("blocks/{name}");
                !files.iter().any(|f| f.path == path)
            })
            .map(|(name, source)| (name.len() + source.len()) as u64)
            .sum();
        let source_bytes = own + platform;
        let files: TemplateFiles = files
            .into_iter()
            .map(|f| (f.path, f.content.into()))
            .collect();
        LoadedFolder::new(renderer::folder::load(&files), source_bytes)
    }

    /// The bytes of the template files it was compiled from.
    pub fn source_bytes(&self) -> u64 {
        self.source_bytes
    }

    /// The bytes of its public files (`assets/`, `scripts/`), kept as they are.
    pub fn public_bytes(&self) -> u64 {
        self.public_bytes
    }

    fn new(folder: TemplateFolder, source_bytes: u64) -> LoadedFolder {
        let etags = folder
            .public
            .iter()
            .filter_map(|(path, bytes)| {
                let tag = HeaderValue::from_str(&format!("\"{:016x}\"", fnv1a(bytes))).ok()?;
                Some((path.clone(), tag))
            })
            .collect();
        let public_bytes = folder
            .public
            .iter()
            .map(|(path, bytes)| (path.len() + bytes.len()) as u64)
            .sum();
        LoadedFolder {
            folder: Arc::new(folder),
            source_bytes,
            public_bytes,
            etags,
            slow_renders: SlowRenders::default(),
        }
    }
}

/// Why a template folder could not be loaded.
#[derive(Clone, Debug)]
pub enum FolderError {
    /// Its files could not be read from the store (worth retrying: 503).
    Store(String),
    /// Compiling it panicked (a bug: 500).
    Compile(String),
}

impl std::fmt::Display for FolderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            FolderError::Store(e) => write!(f, "reading the template files: {e}"),
            FolderError::Compile(e) => write!(f, "compiling the template: {e}"),
        }
    }
}

/// A 64-bit FNV-1a hash: the ETags of public files and combined scripts.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf29ce484222325u64, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x100000001b3)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_slow_renders_in_a_row_move_a_template() {
        let renders = SlowRenders::default();
        // Held up now and then: never three in a row.
        for _ in 0..100 {
            for slow in [true, true, false] {
                assert_eq!(renders.record(slow), None);
            }
        }
        assert!(!renders.is_slow());
        assert_eq!(renders.record(true), None);
        assert_eq!(renders.record(true), None);
        assert_eq!(
            renders.record(true),
            Some(Moved::ToPool),
            "the third in a row"
        );
        assert!(renders.is_slow());
        // Moved: more slow renders keep it there, and it is reported once.
        assert_eq!(renders.record(true), None);
        assert!(renders.is_slow());
    }

    #[test]
    fn only_fast_renders_in_a_row_bring_a_template_back() {
        let renders = SlowRenders::default();
        for _ in 0..SLOW_RENDERS {
            renders.record(true);
        }
        assert!(renders.is_slow());
        // A slow render now and then starts the count again.
        for _ in 0..3 {
            for _ in 1..FAST_RENDERS_BACK {
                assert_eq!(renders.record(false), None);
            }
            assert_eq!(renders.record(true), None);
            assert!(renders.is_slow());
        }
        for _ in 1..FAST_RENDERS_BACK {
            assert_eq!(renders.record(false), None);
            assert!(renders.is_slow());
        }
        assert_eq!(renders.record(false), Some(Moved::Back));
        assert!(!renders.is_slow());
        // Back inline, the rule that moves it starts from nothing.
        assert_eq!(renders.record(true), None);
        assert_eq!(renders.record(false), None);
        assert!(!renders.is_slow());
    }
}
