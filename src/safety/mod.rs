//! Safety filters: dangerous-command blocking (on the line the shell will read), escape-sequence
//! decoding and secret redaction.

pub mod dangerous;
pub mod escapes;
mod keys;
pub mod lineedit;
pub mod pem;
pub mod policy;
pub mod redact;
mod redact_context;
mod redact_rules;
pub mod typed;

pub use dangerous::{BlockedMatch, PATTERNS, check_dangerous};
pub use escapes::{EscapeError, process_escapes};
pub use redact::{redact, redact_value, redact_window};
pub use typed::{Opacity, Refusal, Typing, check_complete, check_typed};
