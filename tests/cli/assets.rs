//! Generated assets (completions/, man/) are fresh.
