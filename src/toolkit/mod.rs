//! Agent toolkit parts (SPEC section 6). Each is sans-IO: time comes in as a
//! parameter, state round-trips through serde.

pub mod breaker;

pub use breaker::{BreakerOptions, BreakerState, CircuitBreaker};
