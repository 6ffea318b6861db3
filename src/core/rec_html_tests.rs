use super::*;
use proptest::prelude::*;

/// The cast the page embeds: its literal (the line after [`CAST_LINE`]) JSON-decoded.
fn embedded(page: &str) -> String {
    let at = page.find(CAST_LINE).expect("the cast's line") + CAST_LINE.len();
    let line = page[at..].lines().next().expect("the cast's literal");
    let literal = line.strip_suffix(';').expect("a statement");
    serde_json::from_str(literal).unwrap_or_else(|e| panic!("{e}: {literal}"))
}

/// The texts of the elements `<tag>…</tag>` of `page`, in order.
fn texts<'a>(page: &'a str, tag: &str) -> Vec<&'a str> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    page.split(open.as_str())
        .skip(1)
        .map(|rest| rest.split(close.as_str()).next().expect("closed"))
        .collect()
}

/// How many times `needle` (ASCII) is in `page`, whatever its case.
fn count_any_case(page: &str, needle: &str) -> usize {
    page.to_ascii_lowercase().matches(needle).count()
}

/// Casts and titles that try to leave their place: pieces of HTML and JavaScript that end a
/// script or open a comment, line terminators JavaScript once refused in strings, and any text.
fn hostile() -> impl Strategy<Value = String> {
    let piece = prop_oneof![
        Just("</script>".to_string()),
        Just("</SCRIPT >".to_string()),
        Just("</title>".to_string()),
        Just("<!--".to_string()),
        Just("-->".to_string()),
        Just("<script>".to_string()),
        Just("\u{2028}\u{2029}".to_string()),
        Just("\"\\'`${}".to_string()),
        Just("\r\n\0\u{7f}\u{1b}[1m".to_string()),
        any::<String>(),
        "\\PC*",
    ];
    proptest::collection::vec(piece, 0..8).prop_map(|p| p.concat())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    /// Whatever the cast and the title hold, the page gives the player the cast as it was,
    /// and nothing of either can end a script, open a comment in one, or end the title.
    #[test]
    fn any_cast_round_trips_and_never_leaves_its_script(cast in hostile(), title in hostile()) {
        let page = standalone_html(&cast, &title);
        prop_assert_eq!(embedded(&page), cast);
        prop_assert_eq!(count_any_case(&page, "</script"), 2);
        prop_assert_eq!(count_any_case(&page, "<script"), 2);
        prop_assert_eq!(count_any_case(&page, "</title"), 1);
        prop_assert_eq!(count_any_case(&page, "</style"), 1);
        let boot = texts(&page, "script")[1];
        prop_assert!(!boot.contains(['<', '>', '&', '\u{2028}', '\u{2029}']), "{}", boot);
        prop_assert_eq!(boot.lines().count(), 3);
    }
}

/// The vendored player can be inlined as it is: nothing in its script ends the script or
/// opens a comment, nothing in its style ends the style, and neither holds a character the
/// HTML parser would change (so the hashes in the policy are of what the browser reads).
#[test]
fn the_player_can_be_inlined_as_released() {
    for bad in ["</script", "<script", "<!--"] {
        assert_eq!(count_any_case(PLAYER_JS, bad), 0, "{bad}");
    }
    assert_eq!(count_any_case(PLAYER_CSS, "</style"), 0);
    assert_eq!(count_any_case(PAGE_CSS, "</style"), 0);
    for text in [PLAYER_JS, PLAYER_CSS, PAGE_CSS] {
        assert!(!text.contains(['\r', '\0']));
    }
    assert!(PLAYER_JS.contains("AsciinemaPlayer"));
}

/// The policy allows the page's own scripts and style, by their hashes, and nothing else.
#[test]
fn the_policy_names_each_inline_element_by_its_hash() {
    let page = standalone_html("{\"version\":3,\"term\":{\"cols\":80,\"rows\":24}}\n", "t");
    let csp = page
        .split("http-equiv=\"Content-Security-Policy\" content=\"")
        .nth(1)
        .and_then(|r| r.split('"').next())
        .expect("a policy");
    let scripts = texts(&page, "script");
    let styles = texts(&page, "style");
    assert_eq!((scripts.len(), styles.len()), (2, 1));
    let want = format!(
        "default-src 'none'; script-src {} {} 'wasm-unsafe-eval'; style-src {}; \
         base-uri 'none'; form-action 'none'",
        csp_hash(scripts[0]),
        csp_hash(scripts[1]),
        csp_hash(styles[0])
    );
    assert_eq!(csp, want);
    assert_eq!(scripts[0], PLAYER_JS);
    // The policy comes before anything it governs.
    assert!(page.find("Content-Security-Policy") < page.find("<style>"));
}

#[test]
fn the_title_is_html_text() {
    let page = standalone_html("", "a <b> & \"c\" 'd'");
    assert!(page.contains("<title>a &lt;b&gt; &amp; &quot;c&quot; &#39;d&#39;</title>"));
}

/// RFC 4648's test vectors, and a digest as the policy writes it.
#[test]
fn base64_is_the_standard_one() {
    let vectors = [
        ("", ""),
        ("f", "Zg=="),
        ("fo", "Zm8="),
        ("foo", "Zm9v"),
        ("foob", "Zm9vYg=="),
        ("fooba", "Zm9vYmE="),
        ("foobar", "Zm9vYmFy"),
    ];
    for (plain, coded) in vectors {
        assert_eq!(base64(plain.as_bytes()), coded, "{plain}");
    }
    // `printf '' | openssl dgst -sha256 -binary | base64`
    assert_eq!(
        csp_hash(""),
        "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
    );
}
