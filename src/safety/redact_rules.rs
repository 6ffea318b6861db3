//! The redaction rule table: each rule's needles, pattern and category, the bare-token
//! prefixes a window's last word is checked against, and the one-pass needle search that
//! picks which rules to run. [`super::redact`] applies them.

use super::pem;
use aho_corasick::AhoCorasick;
use regex::Regex;
use std::borrow::Cow;
use std::sync::{LazyLock, OnceLock};

/// How a rule names what it found.
#[derive(Clone, Copy)]
pub(super) enum Cat {
    /// Always this category.
    Fixed(&'static str),
    /// `password` when the assignment's name says pass…, else `secret`.
    ByName,
}

/// A value in an assignment: double-quoted, single-quoted or bare.
pub(super) const VALUE: &str = r#"(?:"(?<v1>[^"\n]*)"|'(?<v2>[^'\n]*)'|(?<v3>[^\s"'`,;&]+))"#;

/// Keywords that make a name a secret's name (`DB_PASSWORD`, `client_secret`, `api-key` …).
pub(super) const SECRET_WORDS: &str = "password|passwd|passphrase|[_-]pwd|secret|token|api_?key|api-key|apikey|access_?key|access-key|secret_?key|private_?key|auth_?key|credentials?";

/// One redaction rule: the literals that must occur for it to match, its pattern, what the
/// replaced range is (group `v`, `v1`..`v3`, or the whole match) and its category.
pub(super) struct Rule {
    /// Literals (ASCII case ignored) one of which occurs wherever the rule matches.
    pub(super) needles: &'static [&'static str],
    /// The regex source.
    pub(super) pattern: Pattern,
    /// What the replaced range is called.
    pub(super) cat: Cat,
    /// An extra test on the matched value (beyond what a regex says cheaply).
    pub(super) check: Option<fn(&str) -> bool>,
}

/// A rule's regex source: as written, or made (from the shared parts) the first time the
/// rule is compiled — not on every start of a process that redacts a line.
#[derive(Clone, Copy)]
pub(super) enum Pattern {
    Fixed(&'static str),
    Made(fn() -> String),
}

impl Pattern {
    fn source(self) -> Cow<'static, str> {
        match self {
            Self::Fixed(s) => Cow::Borrowed(s),
            Self::Made(f) => Cow::Owned(f()),
        }
    }
}

/// A rule whose pattern names what it finds (`password` or `secret`, by the name matched),
/// made from the shared parts when first compiled.
const fn named(needles: &'static [&'static str], pattern: fn() -> String) -> Rule {
    Rule {
        needles,
        pattern: Pattern::Made(pattern),
        cat: Cat::ByName,
        check: None,
    }
}

pub(super) const fn rule(
    needles: &'static [&'static str],
    pattern: &'static str,
    cat: &'static str,
) -> Rule {
    Rule {
        needles,
        pattern: Pattern::Fixed(pattern),
        cat: Cat::Fixed(cat),
        check: None,
    }
}

pub(super) const NAME_NEEDLES: &[&str] = &[
    "password",
    "passwd",
    "passphrase",
    "secret",
    "token",
    "apikey",
    "api_key",
    "api-key",
    "accesskey",
    "access_key",
    "access-key",
    "secretkey",
    "secret_key",
    "private_key",
    "privatekey",
    "auth_key",
    "authkey",
    "credential",
    "_pwd",
    "-pwd",
];

/// A password in `name:pass` that is not a number (`-u 1000:1000` is a uid:gid).
pub(super) fn not_numeric(v: &str) -> bool {
    !v.bytes().all(|b| b.is_ascii_digit())
}

/// A token has a digit or punctuation: `Bearer authentication` is prose, not a token.
pub(super) fn tokenish(v: &str) -> bool {
    v.bytes().any(|b| !b.is_ascii_alphabetic())
}

pub(super) static RULES: &[Rule] = &[
    Rule {
        needles: &["secret"],
        pattern: Pattern::Made(|| {
            format!(
                r#"(?i)(?:^|[^a-z0-9_]|\\[nrt])(?<name>[a-z0-9_.-]*secret[_-]?access[_-]?key)["']?[ \t]*[:=][ \t]*{VALUE}"#
            )
        }),
        cat: Cat::Fixed("aws_secret_key"),
        check: None,
    },
    named(&["export"], || {
        format!(
            r#"(?i)(?:^|[^a-z0-9_]|\\[nrt])export[ \t]+(?<name>[a-z0-9_]*(?:token|key|secret|pass|credential|auth)[a-z0-9_]*)={VALUE}"#
        )
    }),
    // `client_secret: x`, `API_TOKEN = x`; a dotted suffix only before `=`
    // (`secret.value=x`), so a file in a message (`secret.txt: Permission denied`)
    // is not taken for a key.
    named(NAME_NEEDLES, || {
        format!(
            r#"(?i)(?:^|[^a-z0-9_])(?<name>[a-z0-9_.-]*(?:{SECRET_WORDS})(?:[_-][a-z0-9]+)*)["']?[ \t]*[:=][ \t]*{VALUE}"#
        )
    }),
    named(NAME_NEEDLES, || {
        format!(
            r#"(?i)(?:^|[^a-z0-9_])(?<name>[a-z0-9_.-]*(?:{SECRET_WORDS})(?:[_.-][a-z0-9]+)*)["']?[ \t]*=[ \t]*{VALUE}"#
        )
    }),
    // `pass=` / `db_pass:` (but not `bypass:`: a bare `pass` must start the name or
    // follow a separator).
    named(&["pass"], || {
        format!(
            r#"(?i)(?:^|[^a-z0-9_]|\\[nrt])(?<name>(?:[a-z0-9]+[_.-])*pass)["']?[ \t]*[:=][ \t]*{VALUE}"#
        )
    }),
    named(NAME_NEEDLES, || {
        format!(
            r#"(?i)(?:^|[^a-z0-9_-]|\\[nrt])--(?<name>password|passwd|passphrase|token|secret|api-key|apikey|access-token|auth-token)[ \t]+{VALUE}"#
        )
    }),
    rule(
        &["://"],
        r#"[A-Za-z][A-Za-z0-9+.-]*://[^\s:/@"'<>]*:(?<v>[^\s/"'<>]+)@"#,
        "password",
    ),
    Rule {
        needles: &["bearer"],
        pattern: Pattern::Fixed(
            r"(?i)(?:^|[^a-z0-9_]|\\[nrt])bearer[ \t]+(?<v>[a-z0-9._~+/=-]{8,})",
        ),
        cat: Cat::Fixed("bearer_token"),
        check: Some(tokenish),
    },
    rule(
        &["basic"],
        r"(?i)(?:^|[^a-z0-9_]|\\[nrt])authorization:[ \t]*basic[ \t]+(?<v>[a-z0-9+/=]{8,})",
        "basic_auth",
    ),
    Rule {
        // `Authorization: token X`, `Proxy-Authorization: Digest …`, a header in JSON
        // (`"Authorization": "Bearer …"`), any scheme or none: its credentials.
        needles: &["authorization"],
        pattern: Pattern::Fixed(
            r#"(?i)(?:^|[^a-z0-9_-]|\\[nrt])(?:proxy-)?authorization["']?[ \t]*[:=][ \t]*["']?(?:[a-z][a-z0-9_-]*[ \t]+)?(?<v>[^\s"'\\,;]{6,})"#,
        ),
        cat: Cat::Fixed("authorization"),
        check: Some(tokenish),
    },
    Rule {
        // `X-Api-Key: …`, `X-Auth-Token: …`, `X-Vault-Token`, `X-Amz-Security-Token`,
        // `Private-Token: …` (the name rule covers most; this takes any `X-…` header that
        // names a key, token, secret, signature or auth).
        needles: &["x-"],
        pattern: Pattern::Fixed(
            r#"(?i)(?:^|[^a-z0-9_-]|\\[nrt])x-(?:[a-z0-9]+-)*(?:(?:api)?key|token|secret|signature|auth)(?:-[a-z0-9]+)*["']?[ \t]*:[ \t]*["']?(?<v>[^\s"'\\,;]{6,})"#,
        ),
        cat: Cat::Fixed("secret"),
        check: None,
    },
    Rule {
        // `Cookie: a=1; b=2` / `Set-Cookie: session=…`: every cookie value.
        needles: &["cookie"],
        pattern: Pattern::Fixed(
            r#"(?i)(?:^|[^a-z0-9_-]|\\[nrt])(?:set-)?cookie[ \t]*:[ \t]*(?<v>[^\s=;]+=[^\r\n"']+)"#,
        ),
        cat: Cat::Fixed("cookie"),
        check: None,
    },
    Rule {
        // `-u name:pass` / `-uname:pass` / `-U` (proxy) / `--user name:pass` /
        // `--proxy-user=name:pass` for HTTP and FTP clients: the password; only after
        // such a client on the line (`docker run -u 1000:1000`, `--user root:wheel`,
        // `ps -u` are not credentials).
        needles: &["curl", "wget", "http", "xh ", "lftp", "svn", "aria2c"],
        pattern: Pattern::Fixed(
            r#"(?:^|[^A-Za-z0-9_-]|\\[nrt])(?:curl|wget|https?|xh|lftp|svn|aria2c)(?:[ \t][^\r\n|;&]*?)?[ \t](?:-[A-Za-z]*[uU][ \t]*|--(?:proxy-|http-)?user(?:[ \t]+|=))["']?[^\s:"'@]*:(?<v>[^\s"']+)"#,
        ),
        cat: Cat::Fixed("password"),
        check: Some(not_numeric),
    },
    Rule {
        // MySQL/MariaDB clients' `-pPASS`: the password glued to `-p` (`-p` alone
        // prompts, `-p name` names a database); only after such a client on the line
        // (`mkdir -p`, `ssh -p 22` are not passwords).
        needles: &["mysql", "mariadb"],
        pattern: Pattern::Fixed(
            r#"(?:^|[^A-Za-z0-9_-]|\\[nrt])(?:mysql[a-z]*|mariadb[a-z-]*)(?:[ \t][^\r\n|;&]*?)?[ \t]-p(?:"(?<v1>[^"\r\n]+)"|'(?<v2>[^'\r\n]+)'|(?<v3>[^\s"'`;&|]+))"#,
        ),
        cat: Cat::Fixed("password"),
        check: None,
    },
    Rule {
        // `sshpass -p PASS` / `sshpass -pPASS`.
        needles: &["sshpass"],
        pattern: Pattern::Made(|| {
            format!(
                r#"(?:^|[^A-Za-z0-9_-]|\\[nrt])sshpass(?:[ \t][^\r\n|;&]*?)?[ \t]-p[ \t]*{VALUE}"#
            )
        }),
        cat: Cat::Fixed("password"),
        check: None,
    },
    rule(&["sk-ant-"], r"sk-ant-[A-Za-z0-9_-]{16,}", "anthropic_key"),
    rule(
        &["sk-"],
        r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>sk-[A-Za-z0-9_-]{20,})",
        "api_key",
    ),
    rule(
        &["_live_", "_test_"],
        r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,})",
        "api_key",
    ),
    rule(
        &["hf_"],
        r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>hf_[A-Za-z0-9]{30,})",
        "api_key",
    ),
    rule(
        &["sg."],
        r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,})",
        "api_key",
    ),
    rule(
        &["ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"],
        r"(?:gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})",
        "github_token",
    ),
    rule(&["glpat-"], r"glpat-[A-Za-z0-9_-]{20,}", "gitlab_token"),
    rule(
        &[
            "akia", "asia", "abia", "acca", "agpa", "aida", "aipa", "anpa", "anva", "aroa", "apka",
            "asca",
        ],
        r"(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA)[0-9A-Z]{16}",
        "aws_access_key",
    ),
    rule(
        &["eyj"],
        r"(?:^|[^A-Za-z0-9_]|\\[nrt])(?<v>eyJ[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]{4,}\.[A-Za-z0-9_-]*)",
        "jwt",
    ),
    rule(
        &["xox", "xapp-"],
        r"(?:xox[abeposr]-[A-Za-z0-9-]{10,}|xapp-[0-9]+-[A-Za-z0-9-]{10,})",
        "slack_token",
    ),
    rule(
        &["hooks.slack.com"],
        r"hooks\.slack\.com/services/[A-Za-z0-9/_-]{8,}",
        "slack_webhook",
    ),
    rule(&["aiza"], r"AIza[0-9A-Za-z_-]{35}", "google_api_key"),
    rule(&["ya29."], r"ya29\.[0-9A-Za-z_-]{20,}", "google_token"),
    rule(&["npm_"], r"npm_[A-Za-z0-9]{30,}", "npm_token"),
];

/// The prefixes of bare tokens, their category and the characters (beyond ASCII letters and
/// digits) their rest may have: a window that ends in the middle of one (more output may
/// complete it) has that last word replaced.
pub(super) const TOKEN_PREFIXES: &[(&str, &str, &str)] = &[
    ("sk-ant-", "anthropic_key", "_-"),
    ("sk-", "api_key", "_-"),
    ("sk_live_", "api_key", ""),
    ("rk_live_", "api_key", ""),
    ("hf_", "api_key", ""),
    ("ghp_", "github_token", ""),
    ("gho_", "github_token", ""),
    ("ghu_", "github_token", ""),
    ("ghs_", "github_token", ""),
    ("ghr_", "github_token", ""),
    ("github_pat_", "github_token", "_"),
    ("glpat-", "gitlab_token", "_-"),
    ("AKIA", "aws_access_key", ""),
    ("ASIA", "aws_access_key", ""),
    ("eyJ", "jwt", "_-."),
    ("xox", "slack_token", "-"),
    ("xapp-", "slack_token", "-"),
    ("AIza", "google_api_key", "_-"),
    ("ya29.", "google_token", "_-"),
    ("npm_", "npm_token", ""),
];

/// The rules' compiled regexes, each compiled the first time its needles occur.
pub(super) static COMPILED: LazyLock<Vec<OnceLock<Regex>>> =
    LazyLock::new(|| RULES.iter().map(|_| OnceLock::new()).collect());

/// Every needle, lowercased, with the rule it belongs to (`None`: the private-key blocks).
static NEEDLES: LazyLock<Vec<(Cow<'static, str>, Option<usize>)>> = LazyLock::new(|| {
    let pem = [pem::NEEDLE, pem::PUTTY_NEEDLE].map(|n| (n, None));
    let rules = RULES
        .iter()
        .enumerate()
        .flat_map(|(i, r)| r.needles.iter().map(move |n| (*n, Some(i))));
    pem.into_iter()
        .chain(rules)
        .map(|(n, owner)| (lowercase(n), owner))
        .collect()
});

/// `s` in ASCII lowercase (borrowed when it is already: most needles are written so).
fn lowercase(s: &'static str) -> Cow<'static, str> {
    if s.bytes().any(|b| b.is_ascii_uppercase()) {
        Cow::Owned(s.to_ascii_lowercase())
    } else {
        Cow::Borrowed(s)
    }
}

/// The needles by their first two bytes, for the short search: the bytes some needle
/// starts with (a bitmap: most bytes of a text start none) and `(pair, needle)` sorted by
/// pair. Every needle is at least two bytes long (a test holds them so).
static BY_PAIR: LazyLock<Pairs> = LazyLock::new(|| {
    let mut first = [0u64; 4];
    let mut index: Vec<(u16, usize)> = NEEDLES
        .iter()
        .enumerate()
        .filter_map(|(i, (n, _))| Some((pair(n.as_bytes())?, i)))
        .collect();
    index.sort_unstable();
    for (p, _) in &index {
        let b = usize::from(p >> 8);
        first[b / 64] |= 1 << (b % 64);
    }
    Pairs { first, index }
});

/// See [`BY_PAIR`].
struct Pairs {
    /// One bit for each byte: set when a needle starts with it.
    first: [u64; 4],
    /// `(pair, needle)`, sorted by pair.
    index: Vec<(u16, usize)>,
}

/// The first two bytes of `b` as one number.
fn pair(b: &[u8]) -> Option<u16> {
    Some(u16::from_be_bytes([*b.first()?, *b.get(1)?]))
}

/// Call `hit` with the owner of every needle in `lower` (already lowercase), looking only
/// where a needle's first two bytes are: no search is set up per needle.
fn short_hits(lower: &[u8], hit: &mut impl FnMut(Option<usize>)) {
    let Pairs { first, index } = &*BY_PAIR;
    let mut found = vec![false; NEEDLES.len()];
    for at in 0..lower.len().saturating_sub(1) {
        let b = usize::from(lower[at]);
        if first[b / 64] & (1 << (b % 64)) == 0 {
            continue;
        }
        let Some(p) = pair(&lower[at..]) else { break };
        let from = index.partition_point(|(q, _)| *q < p);
        for &(_, n) in index[from..].iter().take_while(|(q, _)| *q == p) {
            let (needle, owner) = &NEEDLES[n];
            if !found[n] && lower[at..].starts_with(needle.as_bytes()) {
                found[n] = true;
                hit(*owner);
            }
        }
    }
}

/// The needles as one automaton, built the first time a long text is searched.
static AUTOMATON: OnceLock<AhoCorasick> = OnceLock::new();

/// How many bytes of text a process searches needle by needle before it builds the
/// automaton: building it costs a short-lived CLI process (a command, a short reply) more
/// than all its searches, while many searches (a `list --json` of a hundred sessions, a
/// long-lived server) are cheaper with it.
const NEEDLE_BY_NEEDLE: usize = 2048;

/// Bytes searched needle by needle so far.
static SEARCHED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Whether `text` is searched needle by needle: no automaton yet, and the process's budget
/// for that not spent.
fn by_needle(text: &str) -> bool {
    use std::sync::atomic::Ordering;
    AUTOMATON.get().is_none()
        && SEARCHED
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |n| {
                let m = n + text.len();
                (m <= NEEDLE_BY_NEEDLE).then_some(m)
            })
            .is_ok()
}

fn automaton() -> &'static AhoCorasick {
    AUTOMATON.get_or_init(|| {
        // A contiguous NFA: built in microseconds (a DFA over these needles costs more to
        // build than it ever saves in searching) and still one pass.
        AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .kind(Some(aho_corasick::AhoCorasickKind::ContiguousNFA))
            .build(NEEDLES.iter().map(|(n, _)| n.as_bytes()))
            .expect("redaction needles build")
    })
}

/// Call `hit` with the owner of every needle that occurs in `text` (ASCII case ignored;
/// each needle at least once, in no particular order).
pub(super) fn needle_hits(text: &str, mut hit: impl FnMut(Option<usize>)) {
    if by_needle(text) {
        short_hits(text.to_ascii_lowercase().as_bytes(), &mut hit);
        return;
    }
    for m in automaton().find_overlapping_iter(text) {
        hit(NEEDLES[m.pattern().as_usize()].1);
    }
}

/// Whether any needle occurs in `text`.
pub(super) fn any_needle(text: &str) -> bool {
    let mut any = false;
    needle_hits(text, |_| any = true);
    any
}

pub(super) fn compiled(i: usize) -> Option<&'static Regex> {
    let rule = RULES.get(i)?;
    let cell = COMPILED.get(i)?;
    Some(
        cell.get_or_init(|| {
            Regex::new(&rule.pattern.source()).expect("redaction patterns are valid")
        }),
    )
}

/// `password` for a name that says so (`DB_PASSWORD`, `passwd`, `MYSQL_PWD`), else `secret`.
pub(super) fn name_category(name: &str) -> &'static str {
    let n = name.to_ascii_lowercase();
    if n.contains("pass") || n.contains("pwd") {
        "password"
    } else {
        "secret"
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What the automaton finds, whatever the text's length.
    fn by_automaton(text: &str) -> Vec<Option<usize>> {
        let mut v: Vec<_> = automaton()
            .find_overlapping_iter(text)
            .map(|m| NEEDLES[m.pattern().as_usize()].1)
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// What the needle-by-needle search finds.
    fn one_by_one(text: &str) -> Vec<Option<usize>> {
        let lower = text.to_ascii_lowercase();
        let mut v: Vec<_> = NEEDLES
            .iter()
            .filter(|(n, _)| lower.contains(n.as_ref() as &str))
            .map(|(_, o)| *o)
            .collect();
        v.sort();
        v.dedup();
        v
    }

    /// What the short search (by the needles' first two bytes) finds.
    fn by_pairs(text: &str) -> Vec<Option<usize>> {
        let mut v = Vec::new();
        short_hits(text.to_ascii_lowercase().as_bytes(), &mut |o| v.push(o));
        v.sort();
        v.dedup();
        v
    }

    #[test]
    fn every_needle_has_two_bytes_to_be_found_by() {
        assert!(NEEDLES.iter().all(|(n, _)| n.len() >= 2));
        assert_eq!(BY_PAIR.index.len(), NEEDLES.len());
    }

    fn needle() -> impl Strategy<Value = String> {
        (0..NEEDLES.len(), any::<u64>()).prop_map(|(i, case)| {
            // The needle in a random mix of cases.
            NEEDLES[i]
                .0
                .chars()
                .enumerate()
                .map(|(k, c)| {
                    if case >> (k % 64) & 1 == 1 {
                        c.to_ascii_uppercase()
                    } else {
                        c
                    }
                })
                .collect()
        })
    }

    proptest! {
        /// The short-text search picks exactly the rules the automaton picks (and a plain
        /// search for each needle): any text, any needles in any case, overlapping or cut,
        /// multi-byte characters around them.
        #[test]
        fn the_short_search_finds_what_the_automaton_finds(
            parts in proptest::collection::vec(
                prop_oneof![needle(), "\\PC{0,6}", "[a-zA-Z_:/=-]{0,6}"], 0..12),
            cut in 0usize..4,
        ) {
            let mut text = parts.concat();
            // Sometimes a needle cut short at the end.
            for _ in 0..cut {
                text.pop();
            }
            prop_assert_eq!(one_by_one(&text), by_automaton(&text), "{:?}", text);
            prop_assert_eq!(by_pairs(&text), by_automaton(&text), "{:?}", text);
        }
    }
}
