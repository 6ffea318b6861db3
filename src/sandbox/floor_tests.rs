//! The floor's decisions: a table over every loosening field, and properties over generated
//! paths and requests.

use super::*;
use proptest::prelude::*;

fn area() -> Vec<PathBuf> {
    vec![PathBuf::from("/p/proj"), PathBuf::from("/tmp")]
}

fn required() -> Floor {
    Floor {
        mode: Mode::Required,
        origin: "test".into(),
        ..Floor::default()
    }
}

fn asked() -> Asked {
    Asked {
        cwd: PathBuf::from("/p/proj"),
        ..Asked::default()
    }
}

#[test]
fn env_values_fail_closed() {
    for v in [
        "1",
        "true",
        "ON",
        "yes",
        "required",
        " required ",
        "sure",
        "2",
    ] {
        assert_eq!(Mode::from_env_value(v), Mode::Required, "{v:?}");
    }
    assert_eq!(Mode::from_env_value("default"), Mode::Default);
    for v in ["", "0", "false", "off", "OFF", "no"] {
        assert_eq!(Mode::from_env_value(v), Mode::Off, "{v:?}");
    }
    assert_eq!("required".parse::<Mode>(), Ok(Mode::Required));
    assert!("on".parse::<Mode>().is_err());
}

/// Every field that loosens, each with a value the `required` floor must refuse.
#[test]
fn every_loosening_field_is_refused_under_required() {
    let no_net = Floor {
        no_network: true,
        ..required()
    };
    let table: Vec<(&str, Floor, Asked)> = vec![
        (
            "sandbox",
            required(),
            Asked {
                sandbox: Some(false),
                ..asked()
            },
        ),
        (
            "allow_write",
            required(),
            Asked {
                allow_write: vec!["/".into()],
                ..asked()
            },
        ),
        (
            "allow_write",
            required(),
            Asked {
                allow_write: vec!["/p/proj/ok".into(), "/home/me".into()],
                ..asked()
            },
        ),
        (
            "allow_write",
            required(),
            Asked {
                allow_write: vec!["/p".into()],
                ..asked()
            },
        ),
        (
            "cwd",
            required(),
            Asked {
                cwd: "/".into(),
                ..asked()
            },
        ),
        (
            "cwd",
            required(),
            Asked {
                cwd: "/p/projection".into(),
                ..asked()
            },
        ),
        (
            "env.TMPDIR",
            required(),
            Asked {
                tmpdir: Some("/home/me".into()),
                ..asked()
            },
        ),
        (
            "network",
            no_net,
            Asked {
                network: Some(true),
                ..asked()
            },
        ),
    ];
    for (field, floor, a) in table {
        let r = judge(&floor, &a, &area()).expect_err(field);
        assert_eq!(r.field, field, "{a:?}");
    }
}

#[test]
fn tightening_is_always_allowed() {
    let floor = Floor {
        no_network: true,
        deny_read: vec!["/secret".into()],
        allow_write: vec!["/data".into()],
        ..required()
    };
    let a = Asked {
        sandbox: Some(true),
        allow_write: vec!["/p/proj/sub".into(), "/tmp/x".into(), "/data/y".into()],
        network: Some(false),
        cwd: "/p/proj/sub".into(),
        tmpdir: Some("/tmp/me".into()),
    };
    assert_eq!(
        judge(&floor, &a, &area()),
        Ok(Verdict::Confined {
            network: false,
            deny_read: vec!["/secret".into()],
            allow_write: vec!["/data".into()],
        })
    );
    // With no network asked either way, the floor's choice holds.
    assert!(matches!(
        judge(&floor, &asked(), &area()),
        Ok(Verdict::Confined { network: false, .. })
    ));
}

#[test]
fn default_and_off_let_the_request_choose() {
    let default = Floor {
        mode: Mode::Default,
        ..Floor::default()
    };
    assert!(matches!(
        judge(&default, &asked(), &area()),
        Ok(Verdict::Confined { .. })
    ));
    let out = Asked {
        sandbox: Some(false),
        ..asked()
    };
    assert_eq!(judge(&default, &out, &area()), Ok(Verdict::Unconfined));
    let off = Floor::default();
    assert_eq!(judge(&off, &asked(), &area()), Ok(Verdict::Unconfined));
    let wide = Asked {
        sandbox: Some(true),
        allow_write: vec!["/".into()],
        ..asked()
    };
    assert!(matches!(
        judge(&off, &wide, &area()),
        Ok(Verdict::Confined { .. })
    ));
}

fn a_path() -> impl Strategy<Value = PathBuf> {
    let part = prop_oneof![
        Just("p".to_string()),
        Just("proj".to_string()),
        Just("projx".to_string()),
        Just("tmp".to_string()),
        Just("home".to_string()),
        "[a-z]{1,3}",
    ];
    proptest::collection::vec(part, 0..4).prop_map(|parts| {
        let mut p = PathBuf::from("/");
        p.extend(parts);
        p
    })
}

proptest! {
    /// Under `required`, whatever is asked, an accepted request writes only inside the area,
    /// is sandboxed, and keeps the operator's network denial.
    #[test]
    fn an_accepted_request_never_widens_the_floor(
        sandbox in proptest::option::of(any::<bool>()),
        allow in proptest::collection::vec(a_path(), 0..4),
        cwd in a_path(),
        tmpdir in proptest::option::of(a_path()),
        network in proptest::option::of(any::<bool>()),
        no_network in any::<bool>(),
    ) {
        let floor = Floor { no_network, ..required() };
        let a = Asked { sandbox, allow_write: allow.clone(), network, cwd: cwd.clone(), tmpdir: tmpdir.clone() };
        let area = area();
        let inside = |p: &Path| area.iter().any(|r| p.starts_with(r));
        match judge(&floor, &a, &area) {
            Ok(Verdict::Unconfined) => prop_assert!(false, "required let a session out"),
            Ok(Verdict::Confined { network: net, .. }) => {
                prop_assert!(sandbox != Some(false));
                prop_assert!(allow.iter().all(|p| inside(p)));
                prop_assert!(inside(&cwd));
                prop_assert!(tmpdir.as_deref().is_none_or(inside));
                prop_assert!(!(no_network && net));
            }
            Err(r) => {
                // A refusal names a field that really loosens.
                let loosens = match r.field {
                    "sandbox" => sandbox == Some(false),
                    "allow_write" => allow.iter().any(|p| !inside(p)),
                    "cwd" => !inside(&cwd),
                    "env.TMPDIR" => tmpdir.as_deref().is_some_and(|t| !inside(t)),
                    "network" => no_network && network == Some(true),
                    _ => false,
                };
                prop_assert!(loosens, "{r:?}");
            }
        }
    }
}
