//! Which registry entries this user's kpty made: a state directory lies in a repository, and
//! a cloned one can ship a `_registry.json` whose entries route traffic (a desktop session's
//! `desktop_url`) or grant something (an `owner_role` of `leader`). Such an entry is trusted
//! only with a valid seal: an HMAC-SHA256, under a per-user key kept in the private directory
//! ([`super::paths::user_private_dir`], which no repository can ship into), over the entry's
//! routing and identity fields and the state directory's real path. An entry without a valid
//! seal is never used for routing; it can still be listed and removed.

use super::{RegistryEntry, StateDir};
use crate::error::{Error, Result};
use sha2::Sha256;
use std::path::PathBuf;
use std::sync::Mutex;

/// The key's file in the private directory.
const KEY_FILE: &str = "registry.secret";
/// The seal's version prefix.
const SEAL_V1: &str = "v1:";

/// The key, remembered by the private directory it came from.
static KEY: Mutex<Option<(PathBuf, String)>> = Mutex::new(None);

/// The per-user sealing key; with `create`, made (64 random hex characters, born 0600) when
/// missing. `Ok(None)`: none yet and not asked to make one.
fn key(create: bool) -> Result<Option<String>> {
    let mut slot = KEY.lock().unwrap_or_else(|p| p.into_inner());
    // Read once from the private directory, after it was looked at; kept while the process
    // looks for its key there (its environment unchanged), whatever becomes of the file.
    if let Some((d, k)) = slot.as_ref()
        && *d == super::paths::user_private_path()?
    {
        return Ok(Some(k.clone()));
    }
    let dir = super::paths::user_private_dir()?;
    let path = dir.join(KEY_FILE);
    let k = match super::secure::read_secret(&path)? {
        Some(k) => k,
        None if create => super::secure::make_secret(&path, false)?,
        None => return Ok(None),
    };
    if k.len() < 32 {
        return Err(Error::state(
            &path,
            "kpty's registry key is shorter than 32 characters; delete it (entries it sealed \
             must then be registered again)",
        ));
    }
    *slot = Some((dir, k.clone()));
    Ok(Some(k))
}

/// HMAC-SHA256 (RFC 2104) of `msg` under `key`.
fn hmac_sha256(key: &[u8], msg: &[u8]) -> [u8; 32] {
    use hmac::{KeyInit, Mac};
    // HMAC takes a key of any length: `new_from_slice` cannot fail for it.
    let mut mac = <hmac::Hmac<Sha256> as KeyInit>::new_from_slice(key)
        .unwrap_or_else(|_| unreachable!("HMAC accepts keys of every length"));
    mac.update(msg);
    mac.finalize().into_bytes().into()
}

/// HMAC-SHA256 of `msg` under `key`, in hex: for the web console's login cookies, keyed by
/// the console's token (hmac stays in this module).
pub fn mac_hex(key: &[u8], msg: &[u8]) -> String {
    hex::encode(hmac_sha256(key, msg))
}

/// What a seal covers: the state directory's real path and the entry's routing and identity
/// fields, as one JSON array (unambiguous however the fields are chosen).
fn message(state: &StateDir, e: &RegistryEntry) -> Vec<u8> {
    let root = std::fs::canonicalize(state.path()).unwrap_or_else(|_| state.path().to_path_buf());
    let url = e.extra.get("desktop_url").and_then(|v| v.as_str());
    let mut fields: Vec<Option<&str>> = vec![
        Some("kpty-registry-entry-v1"),
        root.to_str(),
        Some(&e.session_id),
        Some(&e.source),
        url,
        e.owner_agent_id.as_deref(),
        e.owner_session_id.as_deref(),
        e.owner_role.as_deref(),
        e.label.as_deref(),
        e.cli_type.as_deref(),
    ];
    // Covered only when set, so seals made before the field existed stay valid.
    if let Some(c) = &e.claude_code_session_id {
        fields.push(Some(c));
    }
    serde_json::to_vec(&fields).unwrap_or_default()
}

fn seal_of(key: &str, state: &StateDir, e: &RegistryEntry) -> String {
    format!(
        "{SEAL_V1}{}",
        hex::encode(hmac_sha256(key.as_bytes(), &message(state, e)))
    )
}

/// A seal over `payload` (of the kind `domain`) in the state directory `state`, made with this
/// user's key (made on first use).
pub fn seal_bytes(state: &StateDir, domain: &str, payload: &[u8]) -> Result<String> {
    let k = key(true)?.ok_or_else(|| Error::internal("no registry key was made"))?;
    Ok(bytes_seal(&k, state, domain, payload))
}

/// Whether `given` is this user's seal over `payload` (of the kind `domain`) in `state`.
pub fn verify_bytes(state: &StateDir, domain: &str, payload: &[u8], given: &str) -> bool {
    let Ok(Some(k)) = key(false) else {
        return false;
    };
    same(
        given.as_bytes(),
        bytes_seal(&k, state, domain, payload).as_bytes(),
    )
}

fn bytes_seal(key: &str, state: &StateDir, domain: &str, payload: &[u8]) -> String {
    let root = std::fs::canonicalize(state.path()).unwrap_or_else(|_| state.path().to_path_buf());
    let head = serde_json::to_vec(&[domain, &root.to_string_lossy()]).unwrap_or_default();
    let mut msg = head;
    msg.push(b'\n');
    msg.extend_from_slice(payload);
    format!(
        "{SEAL_V1}{}",
        hex::encode(hmac_sha256(key.as_bytes(), &msg))
    )
}

/// What a journal line's seal covers: a domain of its own, then the line up to its seal (no
/// state directory: a project moved keeps its trail checkable).
fn journal_message(covered: &[u8]) -> Vec<u8> {
    [b"kpty-journal-v1\n".as_slice(), covered].concat()
}

/// The seal of a journal line ([`super::chain`]) under this user's key (made on first use);
/// empty when no key can be had (the line then says it was not sealed).
pub fn journal_seal(covered: &[u8]) -> String {
    match key(true) {
        Ok(Some(k)) => format!(
            "{SEAL_V1}{}",
            hex::encode(hmac_sha256(k.as_bytes(), &journal_message(covered)))
        ),
        Ok(None) => String::new(),
        Err(e) => {
            tracing::warn!("a journal line goes unsealed: {}", e.message);
            String::new()
        }
    }
}

/// A check of journal seals under this user's key; `None` when this user has no key yet
/// (no seal of theirs can exist, none can be checked).
pub fn journal_checker() -> Option<impl Fn(&[u8], &[u8]) -> bool> {
    let k = key(false).ok().flatten()?;
    Some(move |covered: &[u8], given: &[u8]| {
        let expected = format!(
            "{SEAL_V1}{}",
            hex::encode(hmac_sha256(k.as_bytes(), &journal_message(covered)))
        );
        same(given, expected.as_bytes())
    })
}

/// Equal in time independent of where the inputs differ (the length is not secret): for
/// seals and for the secrets `kpty serve` is presented.
pub fn same(a: &[u8], b: &[u8]) -> bool {
    if a.len() != b.len() {
        return false;
    }
    let diff = a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y));
    std::hint::black_box(diff) == 0
}

/// Seal `e` as made by this user's kpty (the key is made on first use).
pub fn seal(state: &StateDir, e: &mut RegistryEntry) -> Result<()> {
    let k = key(true)?.ok_or_else(|| Error::internal("no registry key was made"))?;
    e.kpty_seal = Some(seal_of(&k, state, e));
    Ok(())
}

/// Whether `e` carries a valid seal of this user's kpty (compared in constant time).
pub fn verified(state: &StateDir, e: &RegistryEntry) -> bool {
    let Some(given) = e.kpty_seal.as_deref() else {
        return false;
    };
    let Ok(Some(k)) = key(false) else {
        return false;
    };
    same(given.as_bytes(), seal_of(&k, state, e).as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hmac_matches_rfc_4231() {
        // Test cases 1 and 2 of RFC 4231.
        assert_eq!(
            hex::encode(hmac_sha256(&[0x0b; 20], b"Hi There")),
            "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7"
        );
        assert_eq!(
            hex::encode(hmac_sha256(b"Jefe", b"what do ya want for nothing?")),
            "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843"
        );
        // Test case 6: a key longer than the block.
        assert_eq!(
            hex::encode(hmac_sha256(
                &[0xaa; 131],
                b"Test Using Larger Than Block-Size Key - Hash Key First"
            )),
            "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54"
        );
    }

    proptest::proptest! {
        #[test]
        fn any_change_to_a_sealed_field_breaks_the_seal(
            field in 0usize..7, value in "[ -~]{0,20}", key in "[0-9a-f]{64}"
        ) {
            let state = StateDir::at("/nonexistent/state").unwrap();
            let mut e = RegistryEntry {
                session_id: "desk_1".into(),
                source: "desktop".into(),
                label: Some("ui".into()),
                ..Default::default()
            };
            e.extra.insert("desktop_url".into(), "http://127.0.0.1:8201".into());
            let before = seal_of(&key, &state, &e);
            let mut f = e.clone();
            let v = Some(value.clone());
            match field {
                0 => f.session_id = value.clone(),
                1 => f.source = value.clone(),
                2 => { f.extra.insert("desktop_url".into(), value.clone().into()); }
                3 => f.owner_agent_id = v,
                4 => f.owner_role = v,
                5 => f.label = v,
                _ => f.cli_type = v,
            }
            proptest::prop_assume!(message(&state, &f) != message(&state, &e));
            proptest::prop_assert_ne!(before.clone(), seal_of(&key, &state, &f));
            let other = StateDir::at("/nonexistent/other").unwrap();
            proptest::prop_assert_ne!(before, seal_of(&key, &other, &e));
        }
    }
}
