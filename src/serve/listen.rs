//! Where `kpty serve` listens: an address (`--bind`, 127.0.0.1 by default) and, when asked,
//! TLS (`--tls-cert`/`--tls-key`, PEM files). The server hands out terminals, so an address
//! other than loopback needs TLS or an explicit `--insecure`; [`Listen::new`] is the one place
//! that rule is kept. The base URL every printed link starts with comes from here too.

use crate::error::{Error, Result};
use std::net::{IpAddr, Ipv4Addr};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// How `kpty serve` listens, checked.
#[derive(Debug, Clone)]
pub struct Listen {
    /// The address bound.
    pub addr: IpAddr,
    /// The certificate chain and key, when the server speaks TLS.
    tls: Option<TlsFiles>,
}

/// The PEM files of `--tls-cert` and `--tls-key`.
#[derive(Debug, Clone)]
struct TlsFiles {
    /// The certificate chain, the server's own first.
    cert: PathBuf,
    /// Its private key (PKCS#8, PKCS#1 or SEC1).
    key: PathBuf,
}

impl Default for Listen {
    fn default() -> Self {
        Listen {
            addr: IpAddr::V4(Ipv4Addr::LOCALHOST),
            tls: None,
        }
    }
}

impl Listen {
    /// Check the flags: `--tls-cert` and `--tls-key` go together, and an address that is not
    /// loopback needs them or `insecure`.
    pub fn new(
        bind: Option<IpAddr>,
        cert: Option<PathBuf>,
        key: Option<PathBuf>,
        insecure: bool,
    ) -> Result<Self> {
        let addr = bind.unwrap_or(IpAddr::V4(Ipv4Addr::LOCALHOST));
        let tls = match (cert, key) {
            (Some(cert), Some(key)) => Some(TlsFiles { cert, key }),
            (None, None) => None,
            (Some(_), None) => return Err(Error::invalid("--tls-cert needs --tls-key (its key)")),
            (None, Some(_)) => {
                return Err(Error::invalid(
                    "--tls-key needs --tls-cert (the certificate)",
                ));
            }
        };
        if tls.is_none() && !insecure && !addr.is_loopback() {
            return Err(Error::invalid(format!(
                "kpty serve --bind {addr} would hand out terminals, the secret and console logins \
                 in clear to the network: give --tls-cert and --tls-key (PEM files), or \
                 --insecure to do it anyway (a trusted network, or TLS in front)"
            )));
        }
        Ok(Listen { addr, tls })
    }

    /// `https` with TLS, else `http`.
    pub fn scheme(&self) -> &'static str {
        if self.tls.is_some() { "https" } else { "http" }
    }

    /// The URL of the server on `port` as this machine reaches it: the address bound (an
    /// unspecified one, `0.0.0.0` or `::`, as loopback), no trailing slash.
    pub fn base(&self, port: u16) -> String {
        let host = match self.addr {
            IpAddr::V4(a) if a.is_unspecified() => "127.0.0.1".to_string(),
            IpAddr::V6(a) if a.is_unspecified() => "[::1]".to_string(),
            IpAddr::V4(a) => a.to_string(),
            IpAddr::V6(a) => format!("[{a}]"),
        };
        format!("{}://{host}:{port}", self.scheme())
    }

    /// The server's TLS side, the files read and checked now (`None` without TLS).
    pub(crate) fn acceptor(&self) -> Result<Option<tokio_rustls::TlsAcceptor>> {
        self.tls.as_ref().map(TlsFiles::acceptor).transpose()
    }
}

impl TlsFiles {
    /// A TLS acceptor (TLS 1.2 and 1.3, HTTP/1.1) for this certificate and key.
    fn acceptor(&self) -> Result<tokio_rustls::TlsAcceptor> {
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, PrivateKeyDer};
        let certs = CertificateDer::pem_file_iter(&self.cert)
            .and_then(|it| it.collect::<std::result::Result<Vec<_>, _>>())
            .map_err(|e| pem_error(&self.cert, "certificates", &e))?;
        if certs.is_empty() {
            return Err(Error::invalid(format!(
                "--tls-cert {}: no certificate (a PEM \"BEGIN CERTIFICATE\" block) in it",
                self.cert.display()
            )));
        }
        let key = PrivateKeyDer::from_pem_file(&self.key)
            .map_err(|e| pem_error(&self.key, "a private key", &e))?;
        let provider = Arc::new(rustls::crypto::ring::default_provider());
        let mut config = rustls::ServerConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .map_err(|e| Error::internal(format!("TLS: {e}")))?
            .with_no_client_auth()
            .with_single_cert(certs, key)
            .map_err(|e| {
                Error::invalid(format!(
                    "--tls-cert {} and --tls-key {} do not make a TLS identity: {e}",
                    self.cert.display(),
                    self.key.display()
                ))
            })?;
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
        Ok(tokio_rustls::TlsAcceptor::from(Arc::new(config)))
    }
}

/// A clear error for a PEM file that cannot be read or holds no `what`.
fn pem_error(path: &Path, what: &str, e: &rustls::pki_types::pem::Error) -> Error {
    Error::invalid(format!("cannot read {what} from {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn addr() -> impl Strategy<Value = IpAddr> {
        prop_oneof![
            any::<[u8; 4]>().prop_map(IpAddr::from),
            any::<[u8; 16]>().prop_map(IpAddr::from),
            Just(IpAddr::from([127, 0, 0, 1])),
            Just(IpAddr::from([0, 0, 0, 0])),
            Just("::1".parse().unwrap()),
            Just("::".parse().unwrap()),
        ]
    }

    proptest! {
        /// The rule, over every address and every combination of the flags: clear text
        /// leaves loopback only with --insecure; a half TLS pair is always refused.
        #[test]
        fn clear_text_off_loopback_needs_insecure(
            bind in proptest::option::of(addr()),
            cert in any::<bool>(),
            key in any::<bool>(),
            insecure in any::<bool>(),
        ) {
            let file = |on: bool, name: &str| on.then(|| PathBuf::from(name));
            let got = Listen::new(bind, file(cert, "c.pem"), file(key, "k.pem"), insecure);
            let loopback = bind.is_none_or(|a| a.is_loopback());
            let expected = cert == key && (cert || insecure || loopback);
            prop_assert_eq!(got.is_ok(), expected, "{:?}", got);
            if let Ok(l) = got {
                prop_assert_eq!(l.scheme(), if cert { "https" } else { "http" });
                let base = l.base(8201);
                let uri = base.parse::<axum::http::Uri>();
                prop_assert!(uri.is_ok_and(|u| u.port_u16() == Some(8201)), "{base}");
                prop_assert!(base.ends_with(":8201"));
            } else if let Err(e) = got {
                prop_assert_eq!(e.code, crate::error::ErrorCode::InvalidParams);
            }
        }
    }

    #[test]
    fn an_unspecified_address_is_reached_on_loopback() {
        let l = Listen::new(Some("0.0.0.0".parse().unwrap()), None, None, true).unwrap();
        assert_eq!(l.base(1), "http://127.0.0.1:1");
        let l = Listen::new(Some("::".parse().unwrap()), None, None, true).unwrap();
        assert_eq!(l.base(1), "http://[::1]:1");
        let l = Listen::new(Some("fe80::1".parse().unwrap()), None, None, true).unwrap();
        assert_eq!(l.base(2), "http://[fe80::1]:2");
    }
}
