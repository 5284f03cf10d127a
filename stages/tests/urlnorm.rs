//! `stages::web::urlnorm` against the URL test data of iipc/urlcanon (Apache-2.0), in
//! `tests/data/url/testdata/`: the WHATWG web-platform tests, urlcanon's own WHATWG,
//! path-dot and IPv4 cases, and the outputs of other canonicalisers (urlcanon's
//! "semantic precise" and "aggressive", the Internet Archive's and Google Safe Browsing's, as
//! kept in `surt.json`).
//!
//! What each set checks:
//! * WHATWG sets (`urltestdata`, `supplemental_whatwg`, `path_dots`, `funky_ipv4`): the parse
//!   itself. A case passes when we reject what WHATWG rejects (or what is not http/https),
//!   and otherwise give the expected scheme, host and port exactly, user information where
//!   WHATWG has some (replaced by the user name `credentials-removed`, rule 8, never a
//!   password), and the same canonical key as the expected URL (our later rules apply to both
//!   sides).
//! * Canonicaliser sets (`semantic_precise`, `aggressive`, `surt.json` sections): a case
//!   passes when we agree with the other canonicaliser that input and output are one
//!   resource: `parse(input)` and `parse(expected)` give the same key (or both are refused).
//!   Identical strings are counted too, for information.
//! * `alphaReorderQuery`: the query string exactly.
//! * `idempotence`: `canonicalize` is a fixed point on every accepted input (checked on every
//!   accepted URL of every set as well).
//!
//! Sets left out, and why: `parsing.json` checks the fields of urlcanon's byte-preserving
//! parser (leading junk, slashes…), which has no counterpart here; `ssurt.json` and
//! `surt.json`'s `defaultIASurt` test SURT serialisation, which we do not produce;
//! `massageHost` only strips `www.`, and `unescapeRepeatedly` only decodes repeatedly, two
//! rules we refuse on purpose; the `nonspecial` half of `path_dots.json` is for schemes we
//! never accept.
//!
//! Every case must pass except the divergences listed in [`DIVERGENCES`], each with its
//! argument; a listed case that starts passing fails the test, so the list stays exact.
//! Run with `--nocapture` to see the table.

use crate::common;

use std::collections::BTreeMap;

use serde_json::Value;
use stages::web::urlnorm::{CREDENTIALS_REMOVED, Canonicalizer, UrlError};
use url::{Host, Url};

/// The outcome of one case.
struct Outcome {
    input: String,
    passed: bool,
    identical: bool,
    detail: String,
}

fn load(name: &str) -> Value {
    let path = common::test_data().join("url").join("testdata").join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// urlcanon's own files hold byte strings, read as Latin-1 by its tests; bytes that form
/// UTF-8 are the text a page decoder would give us, anything else is kept as written.
fn as_text(s: &str) -> String {
    let bytes: Option<Vec<u8>> = s.chars().map(|c| u8::try_from(u32::from(c)).ok()).collect();
    bytes
        .and_then(|bytes| String::from_utf8(bytes).ok())
        .unwrap_or_else(|| s.to_owned())
}

fn pairs(value: &Value) -> Vec<(String, Option<String>)> {
    value
        .as_object()
        .expect("an object of input -> expected")
        .iter()
        .map(|(k, v)| (as_text(k), v.as_str().map(as_text)))
        .collect()
}

/// `canonicalize` must be a fixed point of what `parse` returns.
fn idempotent(c: &Canonicalizer, url: &Url) -> Result<(), String> {
    let again = c.canonicalize(url);
    if &again == url {
        Ok(())
    } else {
        Err(format!("not idempotent: {url} -> {again}"))
    }
}

fn show(result: &Result<Url, UrlError>) -> String {
    match result {
        Ok(url) => url.to_string(),
        Err(e) => format!("Err({e})"),
    }
}

/// Canonicaliser sets: `input` and `expected` must give the same key, or both be refused.
fn same_key(c: &Canonicalizer, input: &str, expected: Option<&str>) -> Outcome {
    let ours = c.parse(input, None);
    let theirs = match expected {
        Some(expected) => c.parse(expected, None),
        None => Err(UrlError::EmptyHost { url: String::new() }),
    };
    let mut passed = match (&ours, &theirs) {
        (Ok(a), Ok(b)) => a == b,
        (Err(_), Err(_)) => true,
        _ => false,
    };
    let mut detail = format!(
        "ours {} | theirs {:?} -> {}",
        show(&ours),
        expected,
        show(&theirs)
    );
    if let Ok(url) = &ours
        && let Err(e) = idempotent(c, url)
    {
        passed = false;
        detail = e;
    }
    let identical = matches!((&ours, expected), (Ok(a), Some(b)) if a.as_str() == b);
    Outcome {
        input: input.to_owned(),
        passed,
        identical,
        detail,
    }
}

fn run_pairs(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    pairs(value)
        .iter()
        .map(|(input, expected)| same_key(c, input, expected.as_deref()))
        .collect()
}

/// The web-platform URL tests: one case per object with an `input`.
fn run_wpt(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    let mut out = Vec::new();
    for case in value
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Value::as_object)
    {
        let field = |name: &str| case.get(name).and_then(Value::as_str).unwrap_or_default();
        let input = field("input");
        let base = case
            .get("base")
            .and_then(Value::as_str)
            .map(|b| Url::parse(b).unwrap_or_else(|e| panic!("base {b}: {e}")));
        let ours = c.parse(input, base.as_ref());
        let failure = case.get("failure").and_then(Value::as_bool) == Some(true);
        let protocol = field("protocol");
        let (passed, why) = if failure {
            (ours.is_err(), "WHATWG rejects it".to_owned())
        } else if !matches!(protocol, "http:" | "https:") {
            (ours.is_err(), format!("{protocol} is not crawled"))
        } else {
            match &ours {
                Err(e) => (false, format!("refused: {e}")),
                Ok(url) => {
                    let href = field("href");
                    let key = Url::parse(href).map(|u| c.canonicalize(&u));
                    let port = url.port().map(|p| p.to_string()).unwrap_or_default();
                    // Rule 8: any user information is replaced by the marker user name.
                    let userinfo = !field("username").is_empty() || !field("password").is_empty();
                    let username = if userinfo { CREDENTIALS_REMOVED } else { "" };
                    let mismatches: Vec<&str> = [
                        (format!("{}:", url.scheme()) == protocol, "protocol"),
                        (url.username() == username, "username"),
                        (url.password().is_none(), "password"),
                        (
                            url.host_str().unwrap_or_default() == field("hostname"),
                            "hostname",
                        ),
                        (port == field("port"), "port"),
                        (url.fragment().is_none(), "fragment kept"),
                        (key.as_ref() == Ok(url), "canonical key"),
                    ]
                    .into_iter()
                    .filter(|(ok, _)| !ok)
                    .map(|(_, name)| name)
                    .collect();
                    match idempotent(c, url) {
                        Err(e) => (false, e),
                        Ok(()) => (mismatches.is_empty(), format!("{mismatches:?} vs {href}")),
                    }
                }
            }
        };
        let identical = matches!(&ours, Ok(url) if url.as_str() == field("href"));
        let base_note = base.map(|b| format!(" (base {b})")).unwrap_or_default();
        out.push(Outcome {
            input: input.to_owned(),
            passed,
            identical,
            detail: format!("{base_note} ours {} — {why}", show(&ours)),
        });
    }
    out
}

/// urlcanon's path-dot resolution cases for special schemes: the path exactly.
fn run_path_dots(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    pairs(&value["special"])
        .into_iter()
        .map(|(path, expected)| {
            let ours = c.parse(&format!("http://example.com{path}"), None);
            let got = ours.as_ref().map(|u| u.path().to_owned()).ok();
            let passed = got.is_some() && got == expected;
            Outcome {
                identical: passed,
                passed,
                detail: format!("ours {got:?} expected {expected:?}"),
                input: path,
            }
        })
        .collect()
}

/// urlcanon's IPv4 cases: the dotted-decimal host, or (null) not an IPv4 host at all.
fn run_ipv4(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    pairs(value)
        .into_iter()
        .map(|(host, expected)| {
            let ours = c.parse(&format!("http://{host}/"), None);
            let ip = match &ours {
                Ok(url) => match url.host() {
                    Some(Host::Ipv4(ip)) => Some(ip.to_string()),
                    _ => None,
                },
                Err(_) => None,
            };
            let passed = ip == expected;
            Outcome {
                identical: passed,
                passed,
                detail: format!("ours {} expected {expected:?}", show(&ours)),
                input: host,
            }
        })
        .collect()
}

/// The IA's query reordering: the query string exactly.
fn run_query_order(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    pairs(value)
        .into_iter()
        .map(|(query, expected)| {
            let ours = c.parse(&format!("http://example.com/?{query}"), None);
            let got = ours
                .as_ref()
                .ok()
                .map(|u| u.query().unwrap_or_default().to_owned());
            let passed = got.is_some() && got == expected;
            Outcome {
                identical: passed,
                passed,
                detail: format!("ours {got:?} expected {expected:?}"),
                input: query,
            }
        })
        .collect()
}

/// Path-only inputs (the IA's session-id stripping): same key as the expected path.
fn run_paths(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    pairs(value)
        .into_iter()
        .map(|(path, expected)| {
            let input = format!("http://example.com{path}");
            let expected = expected.map(|e| format!("http://example.com{e}"));
            let mut outcome = same_key(c, &input, expected.as_deref());
            outcome.input = path;
            outcome
        })
        .collect()
}

/// Parser idempotence inputs: every accepted one is a fixed point of `canonicalize`.
fn run_idempotence(c: &Canonicalizer, value: &Value) -> Vec<Outcome> {
    value
        .as_array()
        .expect("a list")
        .iter()
        .filter_map(Value::as_str)
        .map(|input| {
            let input = as_text(input);
            let ours = c.parse(&input, None);
            let check = ours.as_ref().map_or(Ok(()), |url| idempotent(c, url));
            Outcome {
                passed: check.is_ok(),
                identical: check.is_ok(),
                detail: format!("{} {check:?}", show(&ours)),
                input,
            }
        })
        .collect()
}

#[test]
fn urlcanon_test_data() {
    let c = Canonicalizer::default();
    let surt = load("surt.json");
    let sets: Vec<(&str, Vec<Outcome>)> = vec![
        ("whatwg/urltestdata", run_wpt(&c, &load("urltestdata.json"))),
        (
            "whatwg/supplemental",
            run_pairs(&c, &load("supplemental_whatwg.json")),
        ),
        (
            "whatwg/path_dots",
            run_path_dots(&c, &load("path_dots.json")),
        ),
        ("whatwg/funky_ipv4", run_ipv4(&c, &load("funky_ipv4.json"))),
        (
            "idempotence",
            run_idempotence(&c, &load("idempotence.json")),
        ),
        (
            "semantic_precise",
            run_pairs(&c, &load("semantic_precise.json")),
        ),
        ("aggressive", run_pairs(&c, &load("aggressive.json"))),
        ("google", run_pairs(&c, &surt["google"])),
        (
            "google/supplemental",
            run_pairs(&c, &surt["googleSupplementalFromSurt"]),
        ),
        (
            "ia/Canonicalizer.IA",
            run_pairs(&c, &surt["Canonicalizer.IA"]),
        ),
        (
            "ia/DefaultIA",
            run_pairs(&c, &surt["Canonicalizer.DefaultIA"]),
        ),
        (
            "ia/alphaReorderQuery",
            run_query_order(&c, &surt["alphaRorderQuery"]),
        ),
        (
            "ia/stripPathSessionId",
            run_paths(&c, &surt["stripPathSessionId"]),
        ),
    ];

    let listed: BTreeMap<(&str, &str), &str> = DIVERGENCES
        .iter()
        .map(|(set, input, why)| ((*set, *input), *why))
        .collect();
    let mut problems = Vec::new();
    let mut seen_divergences = 0;
    println!(
        "{:<24} {:>6} {:>7} {:>9} {:>10}",
        "set", "cases", "passed", "diverged", "identical"
    );
    let mut totals = (0, 0, 0, 0);
    for (set, outcomes) in &sets {
        let (mut passed, mut diverged, mut identical) = (0, 0, 0);
        for o in outcomes {
            identical += usize::from(o.identical);
            match (o.passed, listed.contains_key(&(*set, o.input.as_str()))) {
                (true, false) => passed += 1,
                (false, true) => diverged += 1,
                (false, false) => {
                    problems.push(format!("FAILED {set} {:?}: {}", o.input, o.detail))
                }
                (true, true) => problems.push(format!(
                    "listed divergence now passes, remove it: {set} {:?}",
                    o.input
                )),
            }
        }
        seen_divergences += diverged;
        println!(
            "{set:<24} {:>6} {passed:>7} {diverged:>9} {identical:>10}",
            outcomes.len()
        );
        totals = (
            totals.0 + outcomes.len(),
            totals.1 + passed,
            totals.2 + diverged,
            totals.3 + identical,
        );
    }
    println!(
        "{:<24} {:>6} {:>7} {:>9} {:>10}",
        "TOTAL", totals.0, totals.1, totals.2, totals.3
    );

    for problem in &problems {
        println!("{problem}");
    }
    assert!(
        problems.is_empty(),
        "{} unexpected outcomes (see above)",
        problems.len()
    );
    assert_eq!(
        seen_divergences,
        listed.len(),
        "every listed divergence exists"
    );
}

// ---------------------------------------------------------------------------------------------
// Deliberate divergences. Each reason is one argument; the list names every case it covers.

/// The 2017 web-platform snapshot predates WHATWG's "ends in a number" host rule (2021): a
/// host whose last label is numeric must be a valid IPv4 address; the url crate follows it.
const WHATWG_2021: &str = "newer WHATWG than the 2017 data: `256.256.256.256.256` is an invalid \
     IPv4 host now";
/// urlcanon read an all-dots host as the IPv4 address 0.0.0.0, as WHATWG once did.
const WHATWG_DOT_HOST: &str = "current WHATWG keeps an all-dots host as a name (we then refuse it \
     as empty); urlcanon's older reading made it 0.0.0.0";
/// path_dots tests urlcanon's dot resolver alone.
const BACKSLASH: &str = "urlcanon's dot resolver alone; a full WHATWG parse of an http URL reads \
     `\\` as `/`, as browsers do";
/// A bare host name is not a URL.
const BARE_HOST: &str = "a bare host name is a relative reference for WHATWG; seeds must be \
     absolute, links are resolved against their page";
/// Userinfo is part of the URL as WHATWG parses it.
const USERINFO: &str = "we keep userinfo as WHATWG parses it; no rule of ours removes it, and it \
     can select another view of the site";
/// Only unreserved escapes are decoded.
const RESERVED: &str = "decoding a reserved or unsafe character can change the URL's meaning (RFC \
     3986 §2.2); only unreserved escapes are decoded";
/// Stray `%` stays as browsers send it.
const STRAY_PCT: &str = "browsers (WHATWG) send a stray `%` as is; we keep what a browser would \
     fetch instead of inventing `%25`";
/// Decoding is done once.
const ONCE: &str = "decoding twice changes the resource (`%2561` is literally `%61`, RFC 3986 \
     §2.4); we decode once and never assemble new escapes";
/// Input bytes reach us as text.
const RAW_BYTES: &str = "the non-UTF-8 byte reaches us as text (U+0091, sent as %C2%91); urlcanon \
     works on raw bytes";
/// `//` is kept.
const SLASHES: &str = "`//` is a distinct path for most servers; collapsing slashes could merge \
     two resources";
/// Hosts are not repaired.
const HOST_DOTS: &str = "a host with extra dots is another name for WHATWG and for virtual \
     hosting; we do not repair hosts";
/// Stable sort by name.
const STABLE_SORT: &str = "we sort by name, stably, so repeated names keep their order (a list); \
     the others sort whole `name=value` strings";
/// Empty parameters are dropped.
const EMPTY_PARAM: &str = "empty parameters are dropped, as form decoding skips them; the IA \
     keeps an empty one in front";
/// Parameter names keep their case.
const NAME_CASE: &str = "parameter names are case-sensitive for servers; we do not lower-case them";
/// Paths keep their case.
const PATH_CASE: &str = "paths are case-sensitive (RFC 3986 §6.2.2.1); we do not lower-case them";
/// `/dir/` is not `/dir`.
const TRAILING_SLASH: &str = "`/dir/` and `/dir` are different resources for a server";
/// `www.` is kept.
const WWW: &str = "we keep `www.` (and `www12.`): it can be another site, only the server knows";
/// http is not https.
const HTTPS: &str = "http and https are different origins and may serve different content";
/// ASP.NET cookieless sessions are not on our list.
const ASPNET: &str = "ASP.NET `(S(…))` session segments are not on our drop list; `(…)` is also \
     ordinary path text";

/// (set, input as the test reads it, why we deliberately differ).
const DIVERGENCES: &[(&str, &str, &str)] = &[
    (
        "whatwg/urltestdata",
        "http://256.256.256.256.256",
        WHATWG_2021,
    ),
    ("whatwg/supplemental", "http:%2e%2e%2e/a/b", WHATWG_DOT_HOST),
    ("whatwg/supplemental", "http:%2e%2e/a/b", WHATWG_DOT_HOST),
    ("whatwg/supplemental", "http:%2e/a/b", WHATWG_DOT_HOST),
    (
        "whatwg/supplemental",
        "http:/%2e%2e%2e/a/b",
        WHATWG_DOT_HOST,
    ),
    ("whatwg/supplemental", "http:/%2e%2e/a/b", WHATWG_DOT_HOST),
    ("whatwg/supplemental", "http:/%2e/a/b", WHATWG_DOT_HOST),
    (
        "whatwg/supplemental",
        "http://%2e%2e%2e/a/b",
        WHATWG_DOT_HOST,
    ),
    ("whatwg/supplemental", "http://%2e%2e/a/b", WHATWG_DOT_HOST),
    ("whatwg/supplemental", "http://%2e/a/b", WHATWG_DOT_HOST),
    (
        "whatwg/supplemental",
        "http:///%2e%2e%2e/a/b",
        WHATWG_DOT_HOST,
    ),
    ("whatwg/supplemental", "http:///%2e%2e/a/b", WHATWG_DOT_HOST),
    ("whatwg/supplemental", "http:///%2e/a/b", WHATWG_DOT_HOST),
    ("whatwg/path_dots", "/\\", BACKSLASH),
    ("whatwg/path_dots", "/\\.", BACKSLASH),
    ("whatwg/path_dots", "/\\foo", BACKSLASH),
    ("whatwg/path_dots", "/foo\\", BACKSLASH),
    ("whatwg/path_dots", "/foo\\.", BACKSLASH),
    ("whatwg/path_dots", "/foo\\foo", BACKSLASH),
    ("whatwg/path_dots", "\\", BACKSLASH),
    ("whatwg/path_dots", "\\.", BACKSLASH),
    ("whatwg/path_dots", "\\..", BACKSLASH),
    ("whatwg/path_dots", "\\../", BACKSLASH),
    ("whatwg/path_dots", "\\..\\", BACKSLASH),
    ("whatwg/path_dots", "\\./", BACKSLASH),
    ("whatwg/path_dots", "\\.\\", BACKSLASH),
    ("whatwg/path_dots", "\\/", BACKSLASH),
    ("whatwg/path_dots", "\\\\", BACKSLASH),
    ("whatwg/path_dots", "\\foo", BACKSLASH),
    ("whatwg/path_dots", "\\foo/", BACKSLASH),
    ("whatwg/path_dots", "\\foo\\", BACKSLASH),
    ("semantic_precise", "http:%2e%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:/%2e%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:/%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:/%2e/a/b", WHATWG_DOT_HOST),
    (
        "semantic_precise",
        "http://%25DOMAIN:foobar@foodomain.com/",
        USERINFO,
    ),
    ("semantic_precise", "http://%2e%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http://%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http://%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:///%2e%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:///%2e%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http:///%2e/a/b", WHATWG_DOT_HOST),
    ("semantic_precise", "http://:b@www.example.com", USERINFO),
    ("semantic_precise", "http://@:@@host/a/b", USERINFO),
    ("semantic_precise", "http://@@host/a/b", USERINFO),
    ("semantic_precise", "http://@ho@st/a/b", USERINFO),
    ("semantic_precise", "http://a:@www.example.com", USERINFO),
    ("semantic_precise", "http://a:b@www.example.com", USERINFO),
    (
        "semantic_precise",
        "http://example.com/%3A%3a%3C%3c",
        RESERVED,
    ),
    (
        "semantic_precise",
        "http://example.com/%7Ffp3%3Eju%3Dduvgw%3Dd",
        RESERVED,
    ),
    (
        "semantic_precise",
        "http://example.com/(%28:%3A%29)",
        RESERVED,
    ),
    ("semantic_precise", "http://example.com////../..", SLASHES),
    (
        "semantic_precise",
        "http://example.com/?%26=%26&%26",
        STABLE_SORT,
    ),
    (
        "semantic_precise",
        "http://example.com/?%3d=%3d&%3d",
        STABLE_SORT,
    ),
    ("semantic_precise", "http://example.com/@asdf%40", RESERVED),
    (
        "semantic_precise",
        "http://example.com/foo\t\u{91}%91",
        RAW_BYTES,
    ),
    ("semantic_precise", "http://example.com/foo%", STRAY_PCT),
    ("semantic_precise", "http://example.com/foo%2", STRAY_PCT),
    (
        "semantic_precise",
        "http://example.com/foo%2zbar",
        STRAY_PCT,
    ),
    (
        "semantic_precise",
        "http://example.com/foo%2©zbar",
        STRAY_PCT,
    ),
    (
        "semantic_precise",
        "http://example.com/foo/%2e%2",
        STRAY_PCT,
    ),
    (
        "semantic_precise",
        "http://example.com\\\\foo\\\\bar",
        SLASHES,
    ),
    (
        "semantic_precise",
        "http://facebook.com/?foo=%7B%22abc%22",
        RESERVED,
    ),
    (
        "semantic_precise",
        "http://host.com//twoslashes?more//slashes",
        SLASHES,
    ),
    ("semantic_precise", "http://host/%%%25%32%35asd%%", ONCE),
    ("semantic_precise", "http://host/%%300", ONCE),
    ("semantic_precise", "http://host/%%36%31", ONCE),
    ("semantic_precise", "http://host/%25%2536%2531", ONCE),
    ("semantic_precise", "http://host/%25%25361", ONCE),
    ("semantic_precise", "http://host/%25%32%35", ONCE),
    ("semantic_precise", "http://host/%25%32%35%25%32%35", ONCE),
    ("semantic_precise", "http://host/%2525252525252525", ONCE),
    ("semantic_precise", "http://host/%2561", ONCE),
    ("semantic_precise", "http://host/?%%300", ONCE),
    ("semantic_precise", "http://host/?%%36%31", ONCE),
    ("semantic_precise", "http://host/?%25%2536%2531", ONCE),
    ("semantic_precise", "http://host/?%25%25361", ONCE),
    ("semantic_precise", "http://host/?%2561", ONCE),
    ("semantic_precise", "http://host/asdf%25%32%35asd", ONCE),
    ("semantic_precise", "http://www.@pple.com", USERINFO),
    ("semantic_precise", "http://www.google.com.../", HOST_DOTS),
    ("semantic_precise", "http:/:b@www.example.com", USERINFO),
    ("semantic_precise", "http:/a:@www.example.com", USERINFO),
    ("semantic_precise", "http:/a:b@www.example.com", USERINFO),
    ("semantic_precise", "http::b@www.example.com", USERINFO),
    ("semantic_precise", "http:a:@www.example.com", USERINFO),
    ("semantic_precise", "http:a:b@www.example.com", USERINFO),
    ("semantic_precise", "https://test:@test", USERINFO),
    ("semantic_precise", "www.google.com", BARE_HOST),
    ("semantic_precise", "www.google.com/", BARE_HOST),
    ("aggressive", "  https://www.google.com/  ", WWW),
    ("aggressive", "foo.com", BARE_HOST),
    ("aggressive", "foo.com/", BARE_HOST),
    ("aggressive", "foo.com///goo", BARE_HOST),
    ("aggressive", "foo.com///goo/", BARE_HOST),
    ("aggressive", "foo.com//goo", BARE_HOST),
    ("aggressive", "foo.com/b?jar=//goo", BARE_HOST),
    ("aggressive", "foo.com/boo", BARE_HOST),
    ("aggressive", "foo.com/pa!th", BARE_HOST),
    ("aggressive", "foo.com/pa%21th", BARE_HOST),
    ("aggressive", "foo.com/pa%th", BARE_HOST),
    ("aggressive", "foo.com/pa+th", BARE_HOST),
    (
        "aggressive",
        "http://example.com/foo?c=5&&a=1&B=3&A=2&b=4&C=6&",
        NAME_CASE,
    ),
    (
        "aggressive",
        "http://example.com/something/;jsessionid=E85FAC04E331FFCA55549B10B7C7A4FA",
        TRAILING_SLASH,
    ),
    (
        "aggressive",
        "http://legislature.mi.gov/(4hqa0555fwsecu455xqckv45)/mileg.aspx",
        ASPNET,
    ),
    (
        "aggressive",
        "http://legislature.mi.gov/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx",
        ASPNET,
    ),
    (
        "aggressive",
        "http://legislature.mi.gov/(a(4hqa0555fwsecu455xqckv45)S(4hqa0555fwsecu455xqckv45)f(4hqa0555fwsecu455xqckv45))/mileg.aspx?page=sessionschedules",
        ASPNET,
    ),
    ("aggressive", "http://www.chub.org:443/foo", WWW),
    ("aggressive", "http://www.chub.org:80/foo", WWW),
    ("aggressive", "http://www.chub.org:8080/foo", WWW),
    ("aggressive", "http://www.example.com", WWW),
    ("aggressive", "http://www.example.com/", WWW),
    ("aggressive", "http://www.example.com/index.html", WWW),
    (
        "aggressive",
        "http://www.flickr.com/photos/36050182@N05/",
        PATH_CASE,
    ),
    ("aggressive", "http://www.foo.com", WWW),
    ("aggressive", "http://www.foo.com/", WWW),
    ("aggressive", "http://www12.foo.com/", WWW),
    ("aggressive", "http://www232.chub.org:8080/foo", WWW),
    ("aggressive", "https://foo.com/", HTTPS),
    ("aggressive", "https://www.chub.org:443/foo", WWW),
    ("aggressive", "https://www12.foo.com/", WWW),
    ("aggressive", "www12.foo.com", BARE_HOST),
    ("aggressive", "www12.foo.com/", BARE_HOST),
    (
        "google",
        "http://host.com//twoslashes?more//slashes",
        SLASHES,
    ),
    ("google", "http://host/%%%25%32%35asd%%", ONCE),
    ("google", "http://host/%25%32%35", ONCE),
    ("google", "http://host/%25%32%35%25%32%35", ONCE),
    ("google", "http://host/%2525252525252525", ONCE),
    ("google", "http://host/asdf%25%32%35asd", ONCE),
    ("google", "http://www.google.com.../", HOST_DOTS),
    ("google", "www.google.com", BARE_HOST),
    ("google", "www.google.com/", BARE_HOST),
    ("google/supplemental", "Bücher.ch:8080", BARE_HOST),
    ("google/supplemental", "☃.com", BARE_HOST),
    (
        "ia/Canonicalizer.IA",
        "http://www.archive.org/big/",
        TRAILING_SLASH,
    ),
    ("ia/Canonicalizer.IA", "http://www.archive.org:443/", WWW),
    ("ia/Canonicalizer.IA", "http://www.archive.org:80/", WWW),
    ("ia/Canonicalizer.IA", "https://www.archive.org:443/", WWW),
    ("ia/Canonicalizer.IA", "https://www.archive.org:80/", WWW),
    ("ia/DefaultIA", "http://www.alexa.com/", WWW),
    (
        "ia/DefaultIA",
        "http://www34.archive.org/index.html?b=a&b=b&a=b",
        WWW,
    ),
    ("ia/alphaReorderQuery", "a=1&", EMPTY_PARAM),
    ("ia/alphaReorderQuery", "a=b&a=a", STABLE_SORT),
    ("ia/alphaReorderQuery", "b=b&a=b&b=a&a=a", STABLE_SORT),
    (
        "ia/stripPathSessionId",
        "/(4hqa0555fwsecu455xqckv45)/mileg.aspx",
        ASPNET,
    ),
    (
        "ia/stripPathSessionId",
        "/(S(4hqa0555fwsecu455xqckv45))/mileg.aspx",
        ASPNET,
    ),
    (
        "ia/stripPathSessionId",
        "/(a(4hqa0555fwsecu455xqckv45)S(4hqa0555fwsecu455xqckv45)f(4hqa0555fwsecu455xqckv45))/mileg.aspx?page=sessionschedules",
        ASPNET,
    ),
];
