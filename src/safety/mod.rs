//! TEMPORARY stub until the safety module lands.
pub struct BlockedMatch {
    pub id: &'static str,
    pub category: &'static str,
    pub description: &'static str,
}
pub fn check_dangerous(_c: &str) -> Option<BlockedMatch> {
    None
}
pub fn process_escapes(s: &str) -> String {
    s.to_string()
}
pub fn redact(s: &str) -> std::borrow::Cow<'_, str> {
    s.into()
}
