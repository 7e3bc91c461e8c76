//! The whole TypeScript contract (SPEC section 2), declared once, in `js/package/contract.d.ts`.
//!
//! Every export is `skip_typescript` and declared there instead, so the generated `.d.ts` is
//! exact (discriminated unions, no `any`) without being patched after the build. Kept as a
//! TypeScript file, not a Rust string, so editors and `tsc` read it as what it is.

use wasm_bindgen::prelude::*;

#[wasm_bindgen(typescript_custom_section)]
const TS_CONTRACT: &str = include_str!("../../js/package/contract.d.ts");
