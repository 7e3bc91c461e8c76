//! Live class instances by id, for arguments wasm-bindgen cannot take as borrowed instances.
//!
//! `new RepairLoop(options, breaker)` and `schema: someSchema` receive plain JS objects. Each
//! registered instance exposes its id through an internal getter (`__selfhealBreakerId`,
//! `__selfhealSchemaId`) and this module's token through `__selfhealModule`; the receiver reads
//! both and looks the instance up here. Only ids of live instances of this module resolve, so a
//! forged object or another copy's instance reaches nothing; an entry goes when its instance is
//! freed.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::{Rc, Weak};
use std::thread::LocalKey;

use wasm_bindgen::JsValue;

use super::error::{Busy, Read};
use super::read;
use crate::error::OptionError;

thread_local! {
    /// This module's token, which every class found by id hands out through its
    /// `__selfhealModule` getter. Ids count per module, so another copy of the package in the same
    /// process (selfheal/lite beside selfheal, or two versions under node_modules) hands out the
    /// same numbers: an id is looked up only on an object that gives this token (without it,
    /// another copy's `Schema` #1 was taken for this module's `Schema` #1).
    static MODULE: JsValue = js_sys::Object::new().into();
}

/// This module's token (see [`MODULE`]).
pub fn module_token() -> JsValue {
    MODULE.with(JsValue::clone)
}

/// The id `v` gives under `id_key` when `v` is an instance of this module, else `None`.
pub fn own_id(v: &JsValue, id_key: &'static str) -> Option<f64> {
    let ours = MODULE.with(|token| read::get(v, "__selfhealModule") == *token);
    ours.then(|| read::get(v, id_key).as_f64()).flatten()
}

/// The last id handed out, and the live entries by id.
pub struct Registry<T> {
    last: u32,
    live: HashMap<u32, T, fnv::FnvBuildHasher>,
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

/// The registry of one shared class (`BREAKERS`, `RETRY_BUDGETS`).
pub type SharedKey<T> = &'static LocalKey<RefCell<Registry<Weak<RefCell<T>>>>>;

/// A class whose state other objects hold too (a breaker or a retry budget that loops share):
/// the state behind an `Rc`, registered under an id for as long as the instance lives.
pub struct Shared<T: 'static> {
    pub inner: Rc<RefCell<T>>,
    pub id: u32,
    key: SharedKey<T>,
}

impl<T: 'static> Shared<T> {
    pub fn new(key: SharedKey<T>, value: T) -> Shared<T> {
        let inner = Rc::new(RefCell::new(value));
        let id = add(key, Rc::downgrade(&inner));
        Shared { inner, id, key }
    }

    /// Run `f` on the state; [`Busy`] while a call holds it.
    pub fn with<R>(&self, f: impl FnOnce(&mut T) -> R) -> Result<R, JsValue> {
        let mut v = self.inner.try_borrow_mut().map_err(|_| Busy)?;
        Ok(f(&mut v))
    }
}

impl<T: serde::Serialize + 'static> Shared<T> {
    /// `toJSON()`.
    pub fn to_json(&self) -> Result<JsValue, JsValue> {
        let v = self.inner.try_borrow().map_err(|_| Busy)?;
        super::to_js_json(&*v)
    }
}

impl<T: 'static> Drop for Shared<T> {
    fn drop(&mut self) {
        remove(self.key, self.id);
    }
}

/// The shared instance passed as an argument (`field`), found by the id its getter `id_key`
/// gives; `undefined`/`null` for none. `what` names the class in the error.
pub fn shared_arg<T: 'static>(
    key: SharedKey<T>,
    v: &JsValue,
    id_key: &'static str,
    field: &str,
    what: &str,
) -> Read<Option<Rc<RefCell<T>>>> {
    if read::is_nullish(v) {
        return Ok(None);
    }
    match find(key, own_id(v, id_key)).and_then(|w| w.upgrade()) {
        Some(found) => Ok(Some(found)),
        None => Err(OptionError::type_(
            field,
            &format!("must be a {what} (a live instance from this module)"),
        )),
    }
}
