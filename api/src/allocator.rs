//! The process allocator of `tessera`: mimalloc, asked by its plain calls where they do.
//!
//! A file of its own so that the benches (`benches/lib.rs`) compile the same allocator
//! into their loops (`#[path]`), and an engine figure is the server's (issue 46).

/// mimalloc, asked by its plain calls for what needs no more than their alignment.
///
/// `mimalloc::MiMalloc` asks `mi_malloc_aligned` for everything, and mimalloc serves an
/// aligned request over 1 KB by its generic way, which over-allocates to align: 2% of a
/// template's compile went there, on lists of a few KB (benches/README.md, issue 46).
/// Every block `mi_malloc` returns is aligned to a word at least (its sizes are whole
/// words), so a request aligned to a word or less takes the plain calls; the rest goes
/// to `MiMalloc` as before. Both free with `mi_free`.
pub struct Allocator;

/// The alignment every `mi_malloc` block has.
const WORD: usize = std::mem::size_of::<usize>();

unsafe extern "C" {
    // mimalloc's own API, linked through the `mimalloc` crate.
    fn mi_malloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_zalloc(size: usize) -> *mut std::ffi::c_void;
    fn mi_realloc(p: *mut std::ffi::c_void, newsize: usize) -> *mut std::ffi::c_void;
}

unsafe impl std::alloc::GlobalAlloc for Allocator {
    #[inline]
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: mimalloc's malloc, for any size.
            unsafe { mi_malloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.alloc(layout) }
        }
    }

    #[inline]
    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: as `alloc`.
            unsafe { mi_zalloc(layout.size()).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.alloc_zeroed(layout) }
        }
    }

    #[inline]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: std::alloc::Layout) {
        // SAFETY: `ptr` is mimalloc's, however it was allocated (`MiMalloc` frees with
        // `mi_free`, whatever the alignment).
        unsafe { mimalloc::MiMalloc.dealloc(ptr, layout) }
    }

    #[inline]
    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, new_size: usize) -> *mut u8 {
        if layout.align() <= WORD {
            // SAFETY: `ptr` is mimalloc's and live (the caller's contract); a block
            // `mi_realloc` returns is word-aligned as `mi_malloc`'s are.
            unsafe { mi_realloc(ptr.cast(), new_size).cast() }
        } else {
            // SAFETY: the caller's contract, passed on.
            unsafe { mimalloc::MiMalloc.realloc(ptr, layout, new_size) }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::alloc::{GlobalAlloc, Layout};

    use super::Allocator;

    /// Every size around mimalloc's small, medium and 1 KB boundaries, at every alignment
    /// from a byte to a page: the block is aligned, holds what was written, grows and
    /// shrinks keeping it, and comes zeroed when asked.
    #[test]
    fn the_allocator_aligns_keeps_and_zeroes() {
        let sizes = (1..=80)
            .chain([
                127, 128, 129, 1000, 1023, 1024, 1025, 1100, 2000, 4095, 4096, 5000,
            ])
            .chain([65_536, 100_000, 1 << 20, 5 << 20]);
        for size in sizes {
            for align in [1, 2, 4, 8, 16, 32, 64, 4096] {
                let layout = Layout::from_size_align(size, align).unwrap();
                // SAFETY: a layout of non-zero size; each block is freed once, with the
                // layout it has.
                unsafe {
                    let zeroed = Allocator.alloc_zeroed(layout);
                    assert!(!zeroed.is_null());
                    assert_eq!(zeroed as usize % align, 0, "zeroed {size} {align}");
                    assert!(
                        (0..size).all(|i| *zeroed.add(i) == 0),
                        "zeroed {size} {align}"
                    );
                    Allocator.dealloc(zeroed, layout);

                    let p = Allocator.alloc(layout);
                    assert!(!p.is_null());
                    assert_eq!(p as usize % align, 0, "alloc {size} {align}");
                    let byte = |i: usize| (i * 7 + size) as u8;
                    for i in 0..size {
                        *p.add(i) = byte(i);
                    }
                    let grown = size * 3 + 5;
                    let q = Allocator.realloc(p, layout, grown);
                    assert!(!q.is_null());
                    assert_eq!(q as usize % align, 0, "grown {size} {align}");
                    assert!(
                        (0..size).all(|i| *q.add(i) == byte(i)),
                        "grown {size} {align}"
                    );
                    let shrunk = size.div_ceil(2);
                    let grown_layout = Layout::from_size_align(grown, align).unwrap();
                    let r = Allocator.realloc(q, grown_layout, shrunk);
                    assert!(!r.is_null());
                    assert_eq!(r as usize % align, 0, "shrunk {size} {align}");
                    assert!(
                        (0..shrunk).all(|i| *r.add(i) == byte(i)),
                        "shrunk {size} {align}"
                    );
                    Allocator.dealloc(r, Layout::from_size_align(shrunk, align).unwrap());
                }
            }
        }
    }
}
