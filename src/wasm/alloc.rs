//! The global allocator: std's own on wasm32 (dlmalloc), growing the memory by at least an eighth
//! of its size at a time instead of 64 KiB.
//!
//! Every `memory.grow` costs the host: V8 detaches the old `ArrayBuffer` and counts the new pages
//! as external memory, which can start a garbage collection of the whole JS heap. A reply of a
//! million tiny values built a 250 MB heap in about 4,000 one-page grows, a second of `next()`
//! with a large JS heap (0.27 ms each; docs/PERFORMANCE.md, "Streaming"). Growing geometrically
//! makes that about 35 grows, for at most an eighth more memory than was needed, which wasm
//! would never give back anyway.

use std::alloc::{GlobalAlloc, Layout};
use std::cell::UnsafeCell;

use dlmalloc::{Allocator, Dlmalloc};

#[cfg(target_feature = "atomics")]
compile_error!("selfheal's allocator is single-threaded: build without the atomics feature");

const PAGE: usize = 64 * 1024;

/// Where dlmalloc's memory comes from: `memory.grow`, as its own wasm `System` (which the crate
/// does not export) does, by at least an eighth of the memory so far.
struct Geometric;

/// `bytes` more memory, rounded up to whole pages: its start and length, or `None` when the host
/// refuses (its maximum).
fn grow(bytes: usize) -> Option<(*mut u8, usize, u32)> {
    let pages = bytes.div_ceil(PAGE);
    let prev = core::arch::wasm32::memory_grow(0, pages);
    if prev == usize::MAX {
        return None;
    }
    let (start, len) = (prev * PAGE, pages * PAGE);
    // A Rust pointer may not wrap to 0: the very end of the address space is left out (as
    // dlmalloc's own `System` does).
    let len = if start.wrapping_add(len) == 0 {
        len - 16
    } else {
        len
    };
    Some((start as *mut u8, len, 0))
}

unsafe impl Allocator for Geometric {
    fn alloc(&self, size: usize) -> (*mut u8, usize, u32) {
        let have = core::arch::wasm32::memory_size(0).saturating_mul(PAGE);
        let ask = size.max(have / 8);
        grow(ask)
            .or_else(|| if ask > size { grow(size) } else { None })
            .unwrap_or((std::ptr::null_mut(), 0, 0))
    }
    fn remap(&self, _: *mut u8, _: usize, _: usize, _: bool) -> *mut u8 {
        std::ptr::null_mut()
    }
    fn free_part(&self, _: *mut u8, _: usize, _: usize) -> bool {
        false
    }
    fn free(&self, _: *mut u8, _: usize) -> bool {
        false
    }
    fn can_release_part(&self, _: u32) -> bool {
        false
    }
    fn allocates_zeros(&self) -> bool {
        true
    }
    fn page_size(&self) -> usize {
        PAGE
    }
}

struct Heap(UnsafeCell<Dlmalloc<Geometric>>);

// SAFETY: wasm32 without atomics has one thread (checked above), and an allocation never
// re-enters the allocator, so there is never a second reference to the `Dlmalloc`.
unsafe impl Sync for Heap {}

#[global_allocator]
static HEAP: Heap = Heap(UnsafeCell::new(Dlmalloc::new_with_allocator(Geometric)));

// SAFETY (each method): the `Dlmalloc` is only reached here, one call at a time (see `Sync`);
// the layout and pointer contracts are GlobalAlloc's, passed on unchanged.
unsafe impl GlobalAlloc for Heap {
    #[inline(never)]
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).malloc(layout.size(), layout.align()) }
    }
    #[inline(never)]
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        unsafe { (*self.0.get()).calloc(layout.size(), layout.align()) }
    }
    #[inline(never)]
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        unsafe { (*self.0.get()).free(ptr, layout.size(), layout.align()) }
    }
    #[inline(never)]
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        unsafe { (*self.0.get()).realloc(ptr, layout.size(), layout.align(), new_size) }
    }
}
