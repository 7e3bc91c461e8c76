//! getrandom's backend on wasm32 (selected by `.cargo/config.toml`: getrandom's documented
//! `custom` backend).
//!
//! `crypto.getRandomValues` (Node's `crypto.randomFillSync` in Node: `randomFill` in
//! js/snippets/gather.js), imported with `catch`, whenever the host allows it. Where it throws
//! or is missing (Cloudflare Workers at module scope allow no random values), the bytes come from
//! SplitMix64 seeded by the clock and a counter instead of an error. Only jsonschema draws here:
//!
//! * jsonschema's `ahash` maps, once per instance, for their hash keys. An error there is a
//!   panic, which trapped a Worker that compiled its `Schema` at module scope. Their keys do not
//!   need to be secret on wasm: the reply parser's own maps (serde_json's, with std's
//!   `RandomState`) already use fixed keys on wasm32-unknown-unknown, so unpredictable ahash keys
//!   would not make a flood of colliding keys any cheaper to survive (the reply size cap does).
//!
//! Not selfheal's default jitter seeds: [`random_seed`] below calls [`crypto_fill`]
//! directly and refuses to run without crypto, because a jitter seed from the clock
//! synchronises retries across isolates.

use std::cell::{Cell, RefCell};

use wasm_bindgen::prelude::*;

#[wasm_bindgen(module = "/js/snippets/gather.js")]
extern "C" {
    /// Node's `crypto.randomFillSync`, else `crypto.getRandomValues` (js/snippets/gather.js).
    #[wasm_bindgen(js_name = randomFill, catch)]
    fn get_random_values(buf: &mut [u8]) -> Result<(), JsValue>;
}

/// `crypto.getRandomValues` fills at most this many bytes per call.
const MAX_CHUNK: usize = 65_536;

thread_local! {
    static FALLBACK_DRAWS: Cell<u64> = const { Cell::new(0) };
}

/// Fills `dest` from `crypto.getRandomValues` only: false where the host refuses (then `dest`
/// may be partly written). Jitter seeds use this directly, never the clock fallback below: a
/// seed stream seeded from the clock at a Worker's module scope gave every later loop of every
/// isolate the same delays (issue 10, defect 6).
pub(crate) fn crypto_fill(dest: &mut [u8]) -> bool {
    dest.chunks_mut(MAX_CHUNK)
        .all(|chunk| get_random_values(chunk).is_ok())
}

fn fill(dest: &mut [u8]) {
    if crypto_fill(dest) {
        return;
    }
    let draw = FALLBACK_DRAWS.with(|n| {
        n.set(n.get().wrapping_add(1));
        n.get()
    });
    let mut rng = crate::backoff::Rng::new(js_sys::Date::now().to_bits() ^ draw.rotate_left(32));
    for chunk in dest.chunks_mut(8) {
        for (byte, random) in chunk.iter_mut().zip(rng.next_u64().to_le_bytes()) {
            *byte = random;
        }
    }
}

/// The symbol getrandom's `custom` backend calls.
///
/// # Safety
/// getrandom passes a pointer to `len` writable bytes.
#[no_mangle]
unsafe extern "Rust" fn __getrandom_v03_custom(
    dest: *mut u8,
    len: usize,
) -> Result<(), getrandom::Error> {
    if len > 0 {
        // SAFETY: getrandom guarantees `dest` points to `len` writable bytes.
        fill(unsafe { std::slice::from_raw_parts_mut(dest, len) });
    }
    Ok(())
}

// ---------- default seeds for RepairLoop ----------

thread_local! {
    /// Where default seeds come from: a SplitMix64 stream seeded once per instance from the
    /// platform's random source. `crypto.getRandomValues` per loop cost ~3.5 us (Node's
    /// webcrypto), a tenth of `new RepairLoop`; jitter needs distinct, unpredictable-enough
    /// seeds, not a fresh draw from the OS each time. Never seeded from anything else: a
    /// stream seeded from a fallback (the clock is 0 at a Worker's global scope) would give
    /// every later loop of the isolate the same jitter (issue 10, defect 6).
    static SEEDS: RefCell<Option<crate::backoff::Rng>> = const { RefCell::new(None) };
}

/// The default seed: the next draw of [`SEEDS`], seeded on first use from
/// crypto.getRandomValues. Where there is no random source (a Cloudflare Worker's global
/// scope), the loop is not built: an `Error` says why, and the stream stays unseeded, so a
/// loop built later, inside a handler, draws properly.
pub(crate) fn random_seed() -> Result<u64, JsValue> {
    SEEDS.with(|cell| {
        let mut seeds = cell.try_borrow_mut().map_err(|_| super::error::Busy)?;
        let stream = match seeds.as_mut() {
            Some(stream) => stream,
            None => {
                let mut bytes = [0u8; 8];
                if !crypto_fill(&mut bytes) {
                    return Err(no_random_source());
                }
                seeds.insert(crate::backoff::Rng::new(u64::from_le_bytes(bytes)))
            }
        };
        Ok(stream.next_u64())
    })
}

fn no_random_source() -> JsValue {
    js_sys::Error::new(
        "selfheal: RepairLoop needs a random seed for its jitter and no random source is \
         available here (Cloudflare Workers allow random values only inside a request \
         handler): create the loop inside the handler, or pass options.seed",
    )
    .into()
}
