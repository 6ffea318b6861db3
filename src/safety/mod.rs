//! Safety filters: dangerous-command blocking (on the line the shell will read), escape-sequence
//! decoding and secret redaction.

pub mod dangerous;
mod env_rules;
mod escapes;
mod keys;
pub mod launch;
pub mod lineedit;
pub mod pem;
pub mod policy;
pub mod redact;
mod redact_context;
mod redact_message;
mod redact_plain;
mod redact_rules;
mod redact_spans;
pub mod term_in;
pub mod term_out;
pub mod typed;

pub use dangerous::{BlockedMatch, PATTERNS};
pub use escapes::{EscapeError, process_escapes};
pub use policy::check_dangerous;
pub use redact::{contains_secret, redact, redact_value, redact_window};
pub use redact_message::redact_message;
pub use typed::{Judged, Opacity, Refusal, Typing, check_complete, check_typed};
