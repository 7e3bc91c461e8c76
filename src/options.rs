//! Options declared once: each field with its type, its default and, where the host may leave
//! it out, how it is given, on one line of one [`options!`] list.
//!
//! ```text
//! options! {
//!     /// SPEC defaults.                           (attributes of the resolved struct)
//!     #[derive(Debug, Clone, Serialize, Deserialize)]
//!     #[serde(rename_all = "camelCase")]
//!     pub struct Backoff;
//!     /// `Partial<Backoff>`.                      (attributes of the struct the host gives)
//!     #[derive(Debug, Clone, Default, Deserialize)]
//!     #[serde(rename_all = "camelCase")]
//!     given BackoffOptions();                      (the arguments defaults may read)
//!     {
//!         pub base_ms: f64 = 1000.0,               (given as `Option<f64>`)
//!         pub jitter: Jitter = Jitter::Additive,
//!         pub prompt: Prompt,                      (no default: required, given as `Prompt`)
//!         pub seed: u64 = default_seed, given Option<f64>,   (given in another type)
//!     }
//! }
//! ```
//!
//! writes both structs (the given one with the same field names, so with the same serde names),
//! [`Given`] for `Option<BackoffOptions>` (a nested partial struct fills in over its defaults)
//! and two methods on the given struct:
//!
//! * `resolve(self, args…)`: every default applied, in declaration order; a default may read
//!   the arguments and every field declared above it (`Budget::default_for(mode)`);
//! * `fill(self, defaults)`: every field left out taken from `defaults`.
//!
//! Without the `given` part it writes the struct and its `Default` (the toolkit's options, read
//! whole with `#[serde(default)]`).
//!
//! A field's attributes (docs, `#[serde]`) go on the resolved struct; attributes after `given`
//! go on the given field. Adding an option is one line here, plus its check and its `.d.ts`
//! line (docs/ARCHITECTURE.md, "Where to add things").

/// How a value the host gave, or left out, becomes the resolved one.
pub trait Given<T> {
    /// The resolved value: what was given, else `default`.
    fn or(self, default: T) -> T;
}

impl<T> Given<T> for Option<T> {
    fn or(self, default: T) -> T {
        self.unwrap_or(default)
    }
}

/// See the [module docs](self).
macro_rules! options {
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        $(#[$given_meta:meta])*
        given $given:ident($($arg:ident: $arg_ty:ty),*);
        {
            $(
                $(#[$field_meta:meta])*
                pub $field:ident: $ty:ty $(= $default:expr)?
                    $(, given $(#[$given_field_meta:meta])* $given_ty:ty)?
            ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        $(#[$given_meta])*
        pub struct $given {
            $(
                $($(#[$given_field_meta])*)?
                pub $field: $crate::options::options!(@given [$ty] [$($given_ty)?] [$($default)?]),
            )*
        }

        impl $given {
            /// Every default applied, in declaration order.
            pub fn resolve(self, $($arg: $arg_ty),*) -> $name {
                $(
                    let $field: $ty =
                        $crate::options::options!(@or [self.$field] [$($default)?]);
                )*
                $name { $($field),* }
            }

            /// Every field left out taken from `defaults`.
            pub fn fill(self, defaults: $name) -> $name {
                $name {
                    $(
                        $field: $crate::options::options!(
                            @fill [self.$field] [defaults.$field] [$($default)?]
                        ),
                    )*
                }
            }
        }

        impl $crate::options::Given<$name> for Option<$given> {
            fn or(self, defaults: $name) -> $name {
                match self {
                    Some(given) => given.fill(defaults),
                    None => defaults,
                }
            }
        }
    };
    // Without `given`: options read whole (`#[serde(default)]`), so the struct and `Default`.
    (
        $(#[$meta:meta])*
        pub struct $name:ident;
        {
            $( $(#[$field_meta:meta])* pub $field:ident: $ty:ty = $default:expr ),* $(,)?
        }
    ) => {
        $(#[$meta])*
        pub struct $name {
            $( $(#[$field_meta])* pub $field: $ty, )*
        }

        impl Default for $name {
            fn default() -> Self {
                $name { $($field: $default),* }
            }
        }
    };
    (@given [$ty:ty] [$given_ty:ty] [$($default:expr)?]) => { $given_ty };
    (@given [$ty:ty] [] []) => { $ty };
    (@given [$ty:ty] [] [$default:expr]) => { Option<$ty> };
    (@or [$value:expr] []) => { $value };
    (@or [$value:expr] [$default:expr]) => { $crate::options::Given::or($value, $default) };
    (@fill [$value:expr] [$defaults:expr] []) => { $value };
    (@fill [$value:expr] [$defaults:expr] [$default:expr]) => {
        $crate::options::Given::or($value, $defaults)
    };
}

pub(crate) use options;
