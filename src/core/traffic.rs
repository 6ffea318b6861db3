//! The audit trail's lines, typed: the traffic [`Event`] one finished action leaves (the
//! seeds' traffic event fields), and the [`Intent`] written before it runs. Written by
//! [`super::audit`] (to the journals and the gateway), read back by [`super::trail`] for
//! `kpty log`: this module is the one place their JSON shape is said.
//!
//! Reading is tolerant, for trail lines of older (or newer) builds and planted ones: every
//! field may be missing (`None`), a field of the wrong type reads as missing rather than
//! dropping the line, and fields this build does not know are kept as they were
//! ([`Event::extra`]) so `kpty log --json` shows a line whole.

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// One traffic event: what an action was asked, how it ended, how long it took. Written with
/// every field (absent ones as `null`), as the trail and the gateway have always had it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct Event {
    /// When it finished (RFC 3339).
    #[serde(deserialize_with = "lenient")]
    pub ts: Option<String>,
    /// The action (`talk`, `send_line` …, or `reset`); lines without one are not traffic.
    #[serde(deserialize_with = "lenient")]
    pub action: Option<String>,
    /// The session it touched.
    #[serde(deserialize_with = "lenient")]
    pub session_id: Option<String>,
    /// The calling agent (`agent_id`, or `KPTY_AGENT_ID`).
    #[serde(deserialize_with = "lenient")]
    pub agent_id: Option<String>,
    /// The owner session of the session touched.
    #[serde(deserialize_with = "lenient")]
    pub owner_session_id: Option<String>,
    /// What it typed (command, data or keys), redacted and capped.
    #[serde(deserialize_with = "lenient")]
    pub command: Option<String>,
    /// The action's JSON answer, redacted and capped.
    #[serde(deserialize_with = "lenient")]
    pub response: Option<String>,
    /// How long it ran.
    #[serde(deserialize_with = "lenient")]
    pub duration_ms: Option<u64>,
    /// It succeeded.
    #[serde(deserialize_with = "lenient")]
    pub success: Option<bool>,
    /// It was a dangerous command, refused.
    #[serde(deserialize_with = "lenient")]
    pub blocked: Option<bool>,
    /// The rule that refused it.
    #[serde(deserialize_with = "lenient")]
    pub blocked_pattern: Option<String>,
    /// The failure's code.
    #[serde(deserialize_with = "lenient")]
    pub error_code: Option<String>,
    /// The session's label.
    #[serde(deserialize_with = "lenient")]
    pub label: Option<String>,
    /// The session's CLI type.
    #[serde(deserialize_with = "lenient")]
    pub cli_type: Option<String>,
    /// One line of what came of it: `exit 0 in 12 ms, 3 lines`, `blocked: rm_root`,
    /// `timeout after 5000 ms` (seed 003 §5.2).
    #[serde(deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub result_summary: Option<String>,
    /// The evidence pack this entry made (`evidence`, `talk` with `evidence`) — or, as `kpty
    /// log` shows it, the pack that covers this entry.
    #[serde(deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub evidence_id: Option<String>,
    /// The range the pack made covers: its start (RFC 3339).
    #[serde(deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub covers_from: Option<String>,
    /// … and its end.
    #[serde(deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub covers_to: Option<String>,
    /// The SHA-256 of the pack's manifest as it was made (`kpty evidence verify`).
    #[serde(deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub manifest_sha256: Option<String>,
    /// `traffic` in `_registry_events.jsonl` (where lifecycle lines have their own kinds);
    /// left out elsewhere and in the gateway's copy.
    #[serde(deserialize_with = "lenient", skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// Fields of a line this build does not know (read only: kpty writes none).
    #[serde(flatten, skip_serializing_if = "BTreeMap::is_empty")]
    pub extra: BTreeMap<String, Value>,
}

/// The kind of a traffic line in `_registry_events.jsonl`.
pub const TRAFFIC: &str = "traffic";

/// The line written before an audited action runs (`kpty log` hides it: it has no action).
#[derive(Debug, Clone, Serialize)]
pub struct Intent {
    /// When it was asked.
    pub ts: String,
    /// Always `intent`.
    pub event: &'static str,
    /// The action about to run.
    pub intent: &'static str,
    /// The session named, as asked (redacted).
    pub session_id: Option<String>,
    /// What it will type (redacted, capped).
    pub command: Option<String>,
}

impl Event {
    /// The event as a JSON object (as written to a journal and posted to the gateway).
    #[cfg(test)]
    pub fn to_value(&self) -> Value {
        serde_json::to_value(self).unwrap_or_else(|e| {
            tracing::warn!("an audit event cannot be encoded: {e}");
            Value::Null
        })
    }

    /// One journal line as an event; `None` for a line that is not a JSON object (only an
    /// object is an event, whatever serde would make of an array).
    pub fn from_line(line: &[u8]) -> Option<Self> {
        let first = line.iter().find(|b| !b.is_ascii_whitespace())?;
        if *first != b'{' {
            return None;
        }
        let mut e: Self = serde_json::from_slice(line).ok()?;
        // The chain's fields (`store::chain`) are the journal's, not the event's.
        e.extra.remove("prev");
        e.extra.remove("seal");
        Some(e)
    }

    /// A traffic line (one with an action), not a lifecycle or intent line.
    pub fn is_traffic(&self) -> bool {
        self.action.is_some()
    }
}

/// A field read as `None` when it is missing, `null` or of another type.
fn lenient<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    Ok(serde_json::from_value(Value::deserialize(d)?).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_written_event_has_every_field_and_reads_back_equal() {
        let e = Event {
            ts: Some("2026-01-01T00:00:00Z".into()),
            action: Some("talk".into()),
            duration_ms: Some(3),
            success: Some(true),
            blocked: Some(false),
            ..Event::default()
        };
        let v = e.to_value();
        let keys: Vec<&str> = v.as_object().unwrap().keys().map(String::as_str).collect();
        assert_eq!(
            keys,
            [
                "action",
                "agent_id",
                "blocked",
                "blocked_pattern",
                "cli_type",
                "command",
                "duration_ms",
                "error_code",
                "label",
                "owner_session_id",
                "response",
                "session_id",
                "success",
                "ts"
            ]
        );
        assert_eq!(v["agent_id"], Value::Null);
        let back = Event::from_line(v.to_string().as_bytes()).unwrap();
        assert_eq!(back, e);
    }

    /// Every field an [`Event`] knows.
    const KNOWN: [&str; 15] = [
        "ts",
        "action",
        "session_id",
        "agent_id",
        "owner_session_id",
        "command",
        "response",
        "duration_ms",
        "success",
        "blocked",
        "blocked_pattern",
        "error_code",
        "label",
        "cli_type",
        "event",
    ];

    fn fields() -> impl proptest::strategy::Strategy<Value = BTreeMap<String, Value>> {
        use proptest::prelude::*;
        let key = prop_oneof![
            proptest::sample::select(&KNOWN[..]).prop_map(String::from),
            "[a-z_]{1,12}",
        ];
        let value = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(|n| json!(n)),
            "\\PC{0,8}".prop_map(Value::String),
            Just(json!({"nested": [1, "x"]})),
        ];
        proptest::collection::btree_map(key, value, 0..10)
    }

    proptest::proptest! {
        #[test]
        fn any_object_line_reads_and_keeps_what_it_does_not_know(fields in fields()) {
            let line = serde_json::to_vec(&fields).unwrap();
            let e = Event::from_line(&line);
            proptest::prop_assert!(e.is_some());
            let v = e.unwrap().to_value();
            for (k, x) in &fields {
                // A field it knows reads as missing when of another type; any other field
                // is shown as it was.
                let shown = v.get(k);
                let known = KNOWN.contains(&k.as_str());
                proptest::prop_assert!(
                    shown == Some(x) || (known && shown.is_none_or(Value::is_null)),
                    "{}: {} shown as {:?}", k, x, shown
                );
            }
        }
    }

    #[test]
    fn only_objects_are_events() {
        for line in ["[]", "[\"ts\"]", "5", "null", "\"x\"", "", "  ", "{"] {
            assert!(Event::from_line(line.as_bytes()).is_none(), "{line}");
        }
        let e = Event::from_line(br#" {"action": 5, "success": "yes", "ts": "t"}"#).unwrap();
        assert_eq!(
            (e.action, e.success, e.ts.as_deref()),
            (None, None, Some("t"))
        );
    }
}
