//! Live class instances by id, for arguments wasm-bindgen cannot take as borrowed instances.
//!
//! `new RepairLoop(options, breaker)` and `schema: someSchema` receive plain JS objects. Each
//! registered instance exposes its id through an internal getter (`__selfhealBreakerId`,
//! `__selfhealSchemaId`); the receiver reads it and looks the instance up here. Only ids of
//! live instances resolve, so a forged object reaches nothing; an entry goes when its instance
//! is freed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::hash::BuildHasherDefault;
use std::thread::LocalKey;

use super::read::Fnv1a;

/// The last id handed out, and the live entries by id.
pub struct Registry<T> {
    last: u32,
    live: HashMap<u32, T, BuildHasherDefault<Fnv1a>>,
}

impl<T> Default for Registry<T> {
    fn default() -> Self {
        Registry {
            last: 0,
            live: HashMap::default(),
        }
    }
}

/// Registers `value` and returns its id (0 if the registry is busy: that id never resolves).
pub fn add<T: 'static>(key: &'static LocalKey<RefCell<Registry<T>>>, value: T) -> u32 {
    key.with(|r| {
        let Ok(mut r) = r.try_borrow_mut() else {
            return 0;
        };
        r.last = r.last.wrapping_add(1).max(1);
        let id = r.last;
        r.live.insert(id, value);
        id
    })
}

/// The entry under `id`, if it is live.
pub fn find<T: Clone + 'static>(
    key: &'static LocalKey<RefCell<Registry<T>>>,
    id: Option<f64>,
) -> Option<T> {
    let id = id.filter(|n| n.fract() == 0.0 && (1.0..=f64::from(u32::MAX)).contains(n))? as u32;
    key.with(|r| r.try_borrow().ok()?.live.get(&id).cloned())
}

/// Forgets `id` (its instance was freed).
pub fn remove<T: 'static>(key: &'static LocalKey<RefCell<Registry<T>>>, id: u32) {
    key.with(|r| {
        if let Ok(mut r) = r.try_borrow_mut() {
            r.live.remove(&id);
        }
    });
}
