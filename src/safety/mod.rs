//! Safety filters: dangerous-command blocking, escape-sequence decoding and secret redaction.

pub mod dangerous;
pub mod escapes;
pub mod pem;
pub mod redact;

pub use dangerous::{BlockedMatch, PATTERNS, check_dangerous};
pub use escapes::process_escapes;
pub use redact::{redact, redact_value, redact_window};
