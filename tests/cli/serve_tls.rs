//! `kpty serve --bind` and `--tls-cert/--tls-key` from the outside: an address off loopback
//! is refused without TLS or `--insecure` (a matrix of addresses × flags), bad PEM files are
//! clear errors before anything listens; over TLS the API, MCP, the console's login (a
//! `Secure` cookie), its origin rule (`https://` only) and its WebSocket all answer, and clear
//! text gets nothing; bound to every interface, an IP address is a host but a name is not;
//! `kpty console --url` and `serve --print-config` print the server's real address.

use crate::bridge::Serve;
use crate::support::*;
use rustls::pki_types::{CertificateDer, ServerName};
use serde_json::Value;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

/// A throwaway certificate for `localhost` and 127.0.0.1, written to `dir`: (cert, key, der).
pub(crate) fn certificate(dir: &Path) -> (PathBuf, PathBuf, CertificateDer<'static>) {
    let made = rcgen::generate_simple_self_signed(vec!["localhost".into(), "127.0.0.1".into()])
        .expect("a self-signed certificate");
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    std::fs::write(&cert, made.cert.pem()).unwrap();
    std::fs::write(&key, made.signing_key.serialize_pem()).unwrap();
    (cert, key, made.cert.der().clone())
}

/// `kpty serve ARGS…` that must not start: its exit code, stderr, and that it printed nothing.
fn refused(env: &Env, args: &[&str]) -> (i32, String) {
    let mut all = vec!["serve", "--port", "0"];
    all.extend_from_slice(args);
    let out = env.kpty(&all);
    assert!(
        stdout(&out).trim().is_empty(),
        "serve {args:?} started: {}",
        stdout(&out)
    );
    (out.status.code().unwrap_or(-1), stderr(&out))
}

/// One request over TLS to 127.0.0.1:`port` trusting `root`; the whole answer as text.
fn https(port: &str, root: &CertificateDer<'static>, request: &str) -> String {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(root.clone()).unwrap();
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let config = rustls::ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
    let name = ServerName::try_from("127.0.0.1").unwrap();
    let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
    let tcp = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    tcp.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(request.as_bytes())
        .expect("a TLS handshake and a request");
    let mut got = Vec::new();
    // Read until the server closes (its close_notify, or the end of the connection).
    let mut buf = [0u8; 4096];
    loop {
        match tls.read(&mut buf) {
            Ok(0) => break,
            Ok(n) => {
                got.extend_from_slice(&buf[..n]);
                if request.contains("Upgrade: websocket")
                    && got.windows(4).any(|w| w == b"\r\n\r\n")
                {
                    break;
                }
            }
            Err(e) if e.kind() == std::io::ErrorKind::UnexpectedEof => break,
            Err(e) => panic!("reading the TLS answer: {e}"),
        }
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// A request line and headers (`Host` 127.0.0.1, `Connection: close` added), then `body`.
fn request(method: &str, path: &str, port: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut r = format!("{method} {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n");
    for (n, v) in headers {
        r += &format!("{n}: {v}\r\n");
    }
    if !headers
        .iter()
        .any(|(n, _)| n.eq_ignore_ascii_case("connection"))
    {
        r += "Connection: close\r\n";
    }
    if !body.is_empty() {
        r += &format!(
            "Content-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
    }
    r + "\r\n" + body
}

fn status(answer: &str) -> u16 {
    answer
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0)
}

#[test]
fn an_address_off_loopback_needs_tls_or_insecure() {
    let env = Env::new();
    let (cert, key, _) = certificate(env.home());
    let garbage = env.home().join("garbage.pem");
    std::fs::write(&garbage, "not a certificate\n").unwrap();
    let (other_cert, other_key, _) = {
        let dir = env.home().join("other");
        std::fs::create_dir(&dir).unwrap();
        certificate(&dir)
    };
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    // Every address off loopback, without TLS or --insecure: refused before anything listens.
    for addr in [
        "0.0.0.0",
        "::",
        "192.0.2.1",
        "2001:db8::1",
        "10.1.2.3",
        "fe80::1",
    ] {
        let (code, err) = refused(&env, &["--bind", addr]);
        assert_eq!(code, 115, "--bind {addr}: {err}");
        assert!(
            err.contains("INVALID_PARAMS")
                && err.contains("--tls-cert")
                && err.contains("--insecure"),
            "--bind {addr}: {err}"
        );
    }
    // An address this machine does not have is a clear error, with TLS or --insecure.
    for extra in [
        vec!["--insecure"],
        vec!["--tls-cert", cert, "--tls-key", key],
    ] {
        let mut args = vec!["--bind", "192.0.2.1"];
        args.extend(extra);
        let (code, err) = refused(&env, &args);
        assert_eq!(code, 115, "{args:?}: {err}");
        assert!(err.contains("no interface"), "{args:?}: {err}");
    }
    // Half a TLS pair, or --insecure beside TLS: usage errors.
    for args in [
        vec!["--tls-cert", cert],
        vec!["--tls-key", key],
        vec!["--insecure", "--tls-cert", cert, "--tls-key", key],
    ] {
        let (code, err) = refused(&env, &args);
        assert_eq!(code, 2, "{args:?}: {err}");
    }
    // Files that do not make a TLS identity: named in the error, nothing listens.
    let missing = env.home().join("missing.pem");
    let (other_cert, other_key) = (other_cert.to_str().unwrap(), other_key.to_str().unwrap());
    for (c, k, says) in [
        (garbage.to_str().unwrap(), key, "no certificate"),
        (cert, garbage.to_str().unwrap(), "private key"),
        (missing.to_str().unwrap(), key, "missing.pem"),
        (cert, other_key, "do not make a TLS identity"),
        (other_cert, key, "do not make a TLS identity"),
        (key, cert, "no certificate"),
    ] {
        let (code, err) = refused(&env, &["--tls-cert", c, "--tls-key", k]);
        assert_eq!(code, 115, "{c} {k}: {err}");
        assert!(err.contains(says), "{c} {k}: {err}");
    }
}

#[test]
fn over_tls_everything_answers_and_clear_text_gets_nothing() {
    let env = Env::new();
    let id = env.create(&["--label", "tls"]);
    let (cert, key, der) = certificate(env.home());
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let serve = Serve::start_args(&env, &["--tls-cert", cert, "--tls-key", key], &[]);
    assert!(serve.url.starts_with("https://127.0.0.1:"), "{}", serve.url);
    let port = serve.url.rsplit(':').next().unwrap().to_string();
    let bearer = format!("Bearer {}", serve.secret);

    // The API, with its secret.
    let got = https(
        &port,
        &der,
        &request("GET", "/pty/list", &port, &[("Authorization", &bearer)], ""),
    );
    assert_eq!(status(&got), 200, "{got}");
    assert!(got.contains(&id), "{got}");
    let got = https(&port, &der, &request("GET", "/pty/list", &port, &[], ""));
    assert_eq!(status(&got), 401, "{got}");

    // MCP, a plain JSON POST.
    let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let got = https(
        &port,
        &der,
        &request(
            "POST",
            "/mcp",
            &port,
            &[
                ("Authorization", &bearer),
                ("Accept", "application/json, text/event-stream"),
            ],
            init,
        ),
    );
    assert_eq!(status(&got), 200, "{got}");
    assert!(got.contains("serverInfo"), "{got}");

    // The console: `kpty console --url` prints the https link; its token buys a Secure cookie.
    let v = env.ok_json(&["console", "--url", &format!("https://127.0.0.1:{port}")]);
    let link = v["console_url"].as_str().unwrap().to_string();
    assert!(
        link.starts_with(&format!("https://127.0.0.1:{port}/console/#token=")),
        "{v}"
    );
    assert_eq!(v["serving"], true, "{v}");
    let token = link.split("#token=").nth(1).unwrap();
    let origin = format!("https://127.0.0.1:{port}");
    let got = https(
        &port,
        &der,
        &request(
            "POST",
            "/console/login",
            &port,
            &[("Origin", &origin)],
            &format!("{{\"token\":\"{token}\"}}"),
        ),
    );
    assert_eq!(status(&got), 204, "{got}");
    let set = got
        .lines()
        .find(|l| l.to_ascii_lowercase().starts_with("set-cookie:"))
        .unwrap_or_else(|| panic!("no cookie: {got}"));
    for part in ["HttpOnly", "SameSite=Strict", "Secure"] {
        assert!(set.contains(part), "{set}");
    }
    let cookie = set["set-cookie:".len()..]
        .split(';')
        .next()
        .unwrap()
        .trim()
        .to_string();
    // Only the https origin is the console's own.
    for (from, expect) in [
        (origin.clone(), 200),
        (format!("http://127.0.0.1:{port}"), 403),
        ("https://evil.example".to_string(), 403),
    ] {
        let got = https(
            &port,
            &der,
            &request(
                "GET",
                "/console/api/sessions",
                &port,
                &[("Origin", &from), ("Cookie", &cookie)],
                "",
            ),
        );
        assert_eq!(status(&got), expect, "{from}: {got}");
    }
    // Its WebSocket upgrades over TLS (wss).
    let got = https(
        &port,
        &der,
        &request(
            "GET",
            "/console/ws",
            &port,
            &[
                ("Origin", &origin),
                ("Cookie", &cookie),
                ("Connection", "Upgrade"),
                ("Upgrade", "websocket"),
                ("Sec-WebSocket-Version", "13"),
                ("Sec-WebSocket-Key", "dGhlIHNhbXBsZSBub25jZQ=="),
            ],
            "",
        ),
    );
    assert_eq!(status(&got), 101, "{got}");

    // Clear text to the TLS port: no HTTP answer.
    let mut plain = TcpStream::connect(format!("127.0.0.1:{port}")).unwrap();
    plain
        .set_read_timeout(Some(Duration::from_secs(20)))
        .unwrap();
    plain
        .write_all(request("GET", "/health", &port, &[], "").as_bytes())
        .unwrap();
    let mut back = Vec::new();
    let _ = plain.read_to_end(&mut back);
    assert!(
        !back.starts_with(b"HTTP/"),
        "{}",
        String::from_utf8_lossy(&back)
    );

    // --print-config with the same flags names the https address.
    let v = env.ok_json(&[
        "serve",
        "--print-config",
        "--port",
        "8443",
        "--tls-cert",
        cert,
        "--tls-key",
        key,
    ]);
    assert_eq!(v["url"], "https://127.0.0.1:8443/mcp", "{v}");
    assert!(
        v["console_url"]
            .as_str()
            .unwrap()
            .starts_with("https://127.0.0.1:8443/console/#token="),
        "{v}"
    );
}

#[test]
fn bound_to_every_interface_an_address_is_a_host_and_a_name_is_not() {
    let env = Env::new();
    let open = Serve::start_args(&env, &["--bind", "0.0.0.0", "--insecure"], &[]);
    assert!(open.url.starts_with("http://127.0.0.1:"), "{}", open.url);
    let loopback = Serve::start(&env);
    for (serve, host, expect) in [
        (&open, "192.0.2.7:1", 200),
        (&open, "[2001:db8::7]:1", 200),
        (&open, "10.0.0.1", 200),
        (&open, "evil.example", 403),
        (&open, "192.0.2.7.evil.example", 403),
        (&open, "[2001:db8::7]:1.evil.example", 403),
        (&loopback, "192.0.2.7:1", 403),
        (&loopback, "10.0.0.1", 403),
        (&loopback, "127.0.0.1", 200),
    ] {
        let bearer = format!("Bearer {}", serve.secret);
        let a = crate::console::http(
            serve,
            "GET",
            "/pty/list",
            &[("Host", host), ("Authorization", &bearer)],
            "",
        );
        assert_eq!(a.status, expect, "{} Host {host}: {}", serve.url, a.body);
    }
}

#[test]
fn console_url_takes_the_servers_address_and_refuses_anything_else() {
    let env = Env::new();
    for (url, link) in [
        (
            "https://devbox.example:8443",
            "https://devbox.example:8443/console/#token=",
        ),
        (
            "https://devbox.example",
            "https://devbox.example:443/console/#token=",
        ),
        ("http://[::1]:9/", "http://[::1]:9/console/#token="),
        (
            "HTTP://10.0.0.5:8201",
            "http://10.0.0.5:8201/console/#token=",
        ),
    ] {
        let v: Value = env.ok_json(&["console", "--url", url]);
        let got = v["console_url"].as_str().unwrap();
        assert!(got.starts_with(link), "{url}: {v}");
        assert_eq!(v["serving"], false, "{v}");
    }
    for url in [
        "ftp://devbox.example",
        "devbox.example:8201",
        "https://devbox.example/console",
        "https://devbox.example:8201?x=1",
        "https://user:pw@devbox.example",
        "https://",
        "",
    ] {
        env.fails(&["console", "--url", url], 115, "INVALID_PARAMS");
    }
    let out = env.kpty(&["console", "--url", "https://a.example", "--port", "1"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
}

#[test]
fn in_a_real_browser_the_console_works_over_tls() {
    let Some(b) = crate::webdriver::Browser::start() else {
        skip("chromium and chromedriver are not installed");
        return;
    };
    let env = Env::new();
    let id = env.create(&["--label", "over-tls"]);
    let (cert, key, _) = certificate(env.home());
    let (cert, key) = (cert.to_str().unwrap(), key.to_str().unwrap());
    let serve = Serve::start_args(&env, &["--tls-cert", cert, "--tls-key", key], &[]);
    // The link logs in over https (the cookie is Secure), and the overview's wss stream
    // shows the session.
    let link = env.ok(&["console", "--url", &serve.url]);
    assert!(link.starts_with("https://"), "{link}");
    b.go(link.trim());
    let tiles = crate::console::tiles_once(&b, &id, "prompt");
    assert!(tiles.iter().any(|(t, _)| t == &id), "{tiles:?}");
    let scheme = b.run("return location.protocol", Value::Null);
    assert_eq!(scheme, "https:");
}
