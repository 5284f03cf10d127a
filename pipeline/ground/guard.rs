//! The network guard: what the crawler must not reach, whatever a page or a redirect says.
//!
//! **In:** a URL about to enter the frontier or to be fetched; the addresses a host name
//! resolves to. **Out:** a refusal with its reason (`private-address`, `credentials`) and a
//! detail a linguist can act on, or nothing.
//!
//! **Invariants:**
//! - unless the topic sets `[domains] allow_private_addresses = true`, no request goes to a
//!   loopback, private, shared, link-local, multicast, broadcast, reserved or unspecified
//!   address: not as a literal in the URL (in any of the numeric forms browsers accept —
//!   `2130706433`, `0x7f.1`, `0177.0.0.1` — which the URL parser turns into the address), not
//!   through a name (`localhost`, `*.localhost`), and not after DNS resolution (the HTTP
//!   client's resolver drops such addresses, and a host that resolves to nothing else fails
//!   with `private-address`); IPv4 addresses inside IPv6 ones (mapped, NAT64, 6to4) are
//!   judged as the IPv4 address;
//! - URLs with a user name or password are never fetched (reason `credentials`): a link must
//!   not make the crawler log in anywhere, and such URLs leak secrets into the archive;
//! - behind `--proxy` the proxy resolves names, so only the literal and name checks apply.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use crate::ground::outcome::Reason;

/// Why a URL is not fetched.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    /// Reason code recorded in `crawl.sqlite`.
    pub reason: Reason,
    /// What and why, for a human.
    pub detail: String,
}

/// The hint every private-address refusal ends with.
const HINT: &str = "an intranet crawl needs `[domains] allow_private_addresses = true`";

/// Checks a URL before it is queued or fetched.
pub fn check_url(url: &url::Url, allow_private: bool) -> Result<(), Refusal> {
    if !url.username().is_empty() || url.password().is_some() {
        return Err(Refusal {
            reason: Reason::Credentials,
            detail: "the URL carries a user name or password: not fetched".into(),
        });
    }
    if allow_private {
        return Ok(());
    }
    let kind = match url.host() {
        Some(url::Host::Ipv4(ip)) => non_public(IpAddr::V4(ip)),
        Some(url::Host::Ipv6(ip)) => non_public(IpAddr::V6(ip)),
        Some(url::Host::Domain(name)) => {
            let name = name.trim_end_matches('.').to_ascii_lowercase();
            (name == "localhost" || name.ends_with(".localhost")).then_some("loopback")
        }
        None => None,
    };
    match kind {
        Some(kind) => Err(Refusal {
            reason: Reason::PrivateAddress,
            detail: format!(
                "{} is a {kind} address, not on the public internet ({HINT})",
                url.host_str().unwrap_or("")
            ),
        }),
        None => Ok(()),
    }
}

/// What kind of address `ip` is when it is not a public unicast address (None when it is).
pub fn non_public(ip: IpAddr) -> Option<&'static str> {
    match ip {
        IpAddr::V4(v4) => non_public_v4(v4),
        IpAddr::V6(v6) => non_public_v6(v6),
    }
}

fn non_public_v4(ip: Ipv4Addr) -> Option<&'static str> {
    let [a, b, c, _] = ip.octets();
    Some(match (a, b, c) {
        (0, ..) => "unspecified (\"this network\")",
        (127, ..) => "loopback",
        (10, ..) | (192, 168, _) => "private",
        (172, b, _) if (16..32).contains(&b) => "private",
        (100, b, _) if (64..128).contains(&b) => "shared (carrier-grade NAT)",
        (169, 254, _) => "link-local",
        (192, 0, 0) => "IETF protocol assignment",
        (192, 0, 2) | (198, 51, 100) | (203, 0, 113) => "documentation",
        (198, 18 | 19, _) => "benchmarking",
        (192, 88, 99) => "reserved (6to4 relay)",
        (224..=239, ..) => "multicast",
        (240..=255, ..) => "reserved or broadcast",
        _ => return None,
    })
}

fn non_public_v6(ip: Ipv6Addr) -> Option<&'static str> {
    if ip.is_unspecified() {
        return Some("unspecified");
    }
    if ip.is_loopback() {
        return Some("loopback");
    }
    let s = ip.segments();
    // IPv4 inside IPv6: mapped (::ffff:a.b.c.d), NAT64 (64:ff9b::/96), 6to4 (2002::/16).
    if let Some(v4) = ip.to_ipv4_mapped() {
        return non_public_v4(v4);
    }
    // SIIT (::ffff:0:a.b.c.d): as the IPv4 address.
    if s[..4] == [0, 0, 0, 0] && s[4] == 0xffff && s[5] == 0 {
        return non_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    // Local-use NAT64 (64:ff9b:1::/48): a network's own translator.
    if s[0] == 0x64 && s[1] == 0xff9b && s[2] == 1 {
        return Some("private (local-use NAT64)");
    }
    if s[0] == 0x64 && s[1] == 0xff9b && s[2..6] == [0, 0, 0, 0] {
        return non_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    if s[0] == 0x2002 {
        return non_public_v4(Ipv4Addr::new(
            (s[1] >> 8) as u8,
            s[1] as u8,
            (s[2] >> 8) as u8,
            s[2] as u8,
        ));
    }
    // Deprecated IPv4-compatible form (::a.b.c.d).
    if s[..6] == [0, 0, 0, 0, 0, 0] {
        return non_public_v4(Ipv4Addr::new(
            (s[6] >> 8) as u8,
            s[6] as u8,
            (s[7] >> 8) as u8,
            s[7] as u8,
        ));
    }
    Some(match s[0] {
        x if x & 0xfe00 == 0xfc00 => "private (unique local)",
        x if x & 0xffc0 == 0xfe80 => "link-local",
        x if x & 0xffc0 == 0xfec0 => "site-local",
        x if x & 0xff00 == 0xff00 => "multicast",
        0x2001 if s[1] == 0x0db8 => "documentation",
        _ => return None,
    })
}

/// The error a guarded name resolution fails with: every address of the name is private.
#[derive(Debug)]
pub struct PrivateName {
    /// The name and what it resolved to.
    pub detail: String,
}

impl std::fmt::Display for PrivateName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.detail)
    }
}

impl std::error::Error for PrivateName {}

/// The HTTP client's name resolver: the system's (`getaddrinfo`, as reqwest's own), with the
/// addresses that are not public left out — except for the names it exempts (the proxies'
/// own).
#[derive(Debug, Clone, Default)]
pub struct GuardedResolver {
    exempt: std::sync::Arc<Vec<String>>,
}

impl GuardedResolver {
    /// A resolver that lets the hosts of these proxy URLs resolve to any address.
    pub fn exempting(proxies: &[&str]) -> GuardedResolver {
        let exempt = proxies
            .iter()
            .filter_map(|p| {
                let p = p.trim();
                url::Url::parse(p)
                    .or_else(|_| url::Url::parse(&format!("http://{p}")))
                    .ok()
            })
            .filter_map(|u| {
                u.host_str()
                    .map(|h| h.trim_matches(['[', ']']).to_ascii_lowercase())
            })
            .collect();
        GuardedResolver {
            exempt: std::sync::Arc::new(exempt),
        }
    }
}

impl reqwest::dns::Resolve for GuardedResolver {
    fn resolve(&self, name: reqwest::dns::Name) -> reqwest::dns::Resolving {
        let host = name.as_str().to_string();
        let exempt = self
            .exempt
            .iter()
            .any(|e| e.eq_ignore_ascii_case(host.trim_end_matches('.')));
        Box::pin(async move {
            let found: Vec<SocketAddr> =
                tokio::net::lookup_host((host.as_str(), 0)).await?.collect();
            if exempt {
                return Ok(Box::new(found.into_iter()) as reqwest::dns::Addrs);
            }
            let (public, private): (Vec<SocketAddr>, Vec<SocketAddr>) = found
                .into_iter()
                .partition(|a| non_public(a.ip()).is_none());
            if public.is_empty() && !private.is_empty() {
                let ip = private[0].ip();
                return Err(Box::new(PrivateName {
                    detail: format!(
                        "{host} resolves to {ip}, a {} address, not on the public internet ({HINT})",
                        non_public(ip).unwrap_or("private")
                    ),
                })
                    as Box<dyn std::error::Error + Send + Sync>);
            }
            Ok(Box::new(public.into_iter()) as reqwest::dns::Addrs)
        })
    }
}

/// The [`PrivateName`] refusal in an error's chain of causes, if it is one.
pub fn private_name(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = cause {
        if let Some(p) = e.downcast_ref::<PrivateName>() {
            return Some(p.detail.clone());
        }
        cause = e.source();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refused(raw: &str) -> Option<Reason> {
        let url = url::Url::parse(raw).unwrap();
        check_url(&url, false).err().map(|r| r.reason)
    }

    #[test]
    fn every_numeric_form_of_a_private_address_is_refused() {
        for raw in [
            "http://127.0.0.1/",
            "http://127.1/",
            "http://2130706433/",
            "http://0x7f.1/",
            "http://0177.0.0.1/",
            "http://0x7f000001/",
            "http://[::1]/",
            "http://[::ffff:127.0.0.1]/",
            "http://[::ffff:7f00:1]/",
            "http://[64:ff9b::a00:1]/",
            "http://[2002:c0a8:101::]/",
            "http://10.1.2.3:8080/admin",
            "http://172.16.0.1/",
            "http://172.31.255.255/",
            "http://192.168.1.1/",
            "http://169.254.169.254/latest/meta-data/",
            "http://100.64.0.1/",
            "http://0.0.0.0/",
            "http://224.0.0.1/",
            "http://255.255.255.255/",
            "http://[fd00::1]/",
            "http://[::ffff:0:a00:1]/",
            "http://[64:ff9b:1::a00:1]/",
            "http://192.88.99.1/",
            "http://[fe80::1]/",
            "http://[ff02::1]/",
            "http://[::]/",
            "http://localhost:8080/",
            "http://LOCALHOST./",
            "http://intranet.localhost/",
        ] {
            assert_eq!(refused(raw), Some(Reason::PrivateAddress), "{raw}");
        }
    }

    #[test]
    fn public_addresses_and_names_pass() {
        for raw in [
            "http://93.184.215.14/",
            "http://172.32.0.1/",
            "http://172.15.0.1/",
            "http://100.128.0.1/",
            "http://[2606:4700::1]/",
            "http://example.org/",
            "http://localhost.example.org/",
            "http://a.test/",
        ] {
            assert_eq!(refused(raw), None, "{raw}");
        }
    }

    #[test]
    fn credentials_are_refused_even_on_intranets() {
        for raw in ["http://user:pass@example.org/", "http://user@example.org/"] {
            let url = url::Url::parse(raw).unwrap();
            assert_eq!(
                check_url(&url, true).map_err(|r| r.reason),
                Err(Reason::Credentials),
                "{raw}"
            );
        }
        let intranet = url::Url::parse("http://10.0.0.5/wiki").unwrap();
        assert_eq!(check_url(&intranet, true), Ok(()));
        let err = check_url(&intranet, false).unwrap_err();
        assert!(err.detail.contains("allow_private_addresses"), "{err:?}");
    }

    #[test]
    fn the_resolver_keeps_public_addresses_and_refuses_private_only_names() {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let resolve = |host: &str| {
            let name: reqwest::dns::Name = host.parse().unwrap();
            runtime.block_on(reqwest::dns::Resolve::resolve(
                &GuardedResolver::default(),
                name,
            ))
        };
        let err = resolve("localhost").err().unwrap();
        let detail = private_name(err.as_ref()).unwrap();
        assert!(detail.contains("localhost resolves to"), "{detail}");
        // A proxy named `localhost` is the user's choice: it resolves.
        let exempting = GuardedResolver::exempting(&["http://localhost:3128"]);
        let name: reqwest::dns::Name = "localhost".parse().unwrap();
        let found: Vec<SocketAddr> = runtime
            .block_on(reqwest::dns::Resolve::resolve(&exempting, name))
            .unwrap()
            .collect();
        assert!(!found.is_empty());
    }
}
