//! Tests of URL canonicalisation: each rule, idempotence, errors naming the URL.

use super::*;

#[test]
fn non_text_files_are_known_by_their_extension() {
    let ext = |u: &str| non_text_extension(&Url::parse(u).expect("test URL"));
    assert_eq!(ext("http://a.test/cours.pdf"), Some("pdf"));
    assert_eq!(ext("http://a.test/img/Logo.PNG?v=2"), Some("png"));
    assert_eq!(ext("http://a.test/a/archive.tar.gz"), Some("gz"));
    assert_eq!(ext("http://a.test/get.php?file=a.pdf"), None);
    assert_eq!(ext("http://a.test/page.html"), None);
    assert_eq!(ext("http://a.test/notes.txt"), None);
    assert_eq!(ext("http://a.test/pdf/"), None);
    assert_eq!(ext("http://a.test/"), None);
    assert_eq!(ext("http://a.test/v1.2"), None);
    let mut sorted = NON_TEXT_EXTENSIONS.to_vec();
    sorted.sort_unstable();
    assert_eq!(sorted, NON_TEXT_EXTENSIONS, "kept sorted for reading");
}

fn canon(input: &str) -> String {
    Canonicalizer::default()
        .parse(input, None)
        .map(String::from)
        .unwrap_or_else(|e| panic!("{input}: {e}"))
}

#[test]
fn user_names_and_passwords_are_never_kept() {
    for (given, want) in [
        (
            "http://alice:s3cret@a.test/p",
            "http://credentials-removed@a.test/p",
        ),
        (
            "http://alice@a.test/p",
            "http://credentials-removed@a.test/p",
        ),
        (
            "http://:s3cret@a.test/p",
            "http://credentials-removed@a.test/p",
        ),
        (
            "https://a%40b:s%2Fcret@a.test:8443/",
            "https://credentials-removed@a.test:8443/",
        ),
    ] {
        let got = canon(given);
        assert_eq!(got, want, "{given}");
        // Idempotent, and still a URL with user information (the crawler refuses it).
        assert_eq!(canon(&got), got);
        let url = Url::parse(&got).expect("parses");
        assert_eq!(url.username(), CREDENTIALS_REMOVED);
        assert_eq!(url.password(), None);
    }
    // A relative link on a page with credentials in its URL: resolved without them.
    let base = Url::parse("http://credentials-removed@a.test/d/").expect("base");
    let got = Canonicalizer::default()
        .parse("x.html", Some(&base))
        .expect("parses");
    assert_eq!(got.as_str(), "http://credentials-removed@a.test/d/x.html");
    // Error messages never quote a password.
    for bad in [
        "http://alice:s3cret@a.test:99999/",
        "http://alice:s3/cret@:80/",
        "ftp://alice:s3cret@a.test/",
    ] {
        let err = Canonicalizer::default()
            .parse(bad, None)
            .unwrap_err()
            .to_string();
        assert!(!err.contains("s3cret") && !err.contains("cret"), "{err}");
        assert!(!err.contains("alice"), "{err}");
    }
    assert_eq!(
        without_userinfo("http://a.test/p?mail=x@y.org"),
        "http://a.test/p?mail=x@y.org"
    );
}

#[test]
fn whatwg_parse_lowercases_punycodes_and_resolves() {
    assert_eq!(
        canon("HTTPS://Example.ORG:443/a/../b/./c"),
        "https://example.org/b/c"
    );
    assert_eq!(
        canon("http://Bücher.example:80"),
        "http://xn--bcher-kva.example/"
    );
    assert_eq!(
        canon("http://example.org:8080/"),
        "http://example.org:8080/"
    );
    assert_eq!(
        canon(" http://ex\tample.org/a\nb "),
        "http://example.org/ab"
    );
}

#[test]
fn relative_links_resolve_against_the_base() {
    let c = Canonicalizer::default();
    let base = Url::parse("https://example.org/dir/page.html?x=1#top").ok();
    let got = c
        .parse("../other?b=2&a=1#frag", base.as_ref())
        .map(String::from);
    assert_eq!(got, Ok("https://example.org/other?a=1&b=2".to_owned()));
    let got = c
        .parse("//cdn.example.net/x", base.as_ref())
        .map(String::from);
    assert_eq!(got, Ok("https://cdn.example.net/x".to_owned()));
}

#[test]
fn fragment_is_removed() {
    assert_eq!(
        canon("http://example.org/p#section-2"),
        "http://example.org/p"
    );
    assert_eq!(
        canon("http://example.org/p?q=1#"),
        "http://example.org/p?q=1"
    );
}

#[test]
fn percent_encoding_is_normalised_in_path_and_query() {
    assert_eq!(
        canon("http://e.org/%7euser/%41%2d%5F"),
        "http://e.org/~user/A-_"
    );
    assert_eq!(
        canon("http://e.org/a%2fb%c3%a9"),
        "http://e.org/a%2Fb%C3%A9"
    );
    assert_eq!(
        canon("http://e.org/?q=%7e%2b%3d"),
        "http://e.org/?q=~%2B%3D"
    );
    // Non-ASCII is encoded by the parser, then upper-cased like any escape.
    assert_eq!(
        canon("http://e.org/café?é"),
        "http://e.org/caf%C3%A9?%C3%A9"
    );
    // A stray `%` is not an escape.
    assert_eq!(canon("http://e.org/100%?x=%zz"), "http://e.org/100%?x=%zz");
    // Decoding is done once: `%2541` is `%41` literally, not `A`.
    assert_eq!(canon("http://e.org/%2541"), "http://e.org/%2541");
    // Nor does decoding assemble a new escape behind a stray `%`.
    assert_eq!(
        canon("http://e.org/%%36%31?%%36%31"),
        "http://e.org/%%361?%%361"
    );
    assert_eq!(canon("http://e.org/%%361%6"), "http://e.org/%%361%6");
    assert_eq!(canon("http://e.org/%6%31"), "http://e.org/%6%31");
    assert_eq!(canon("http://e.org/%%37A"), "http://e.org/%%37A");
}

#[test]
fn query_parameters_are_sorted_stably_by_name() {
    assert_eq!(
        canon("http://e.org/s?q=b&page=2&q=a&Q=c"),
        "http://e.org/s?Q=c&page=2&q=b&q=a"
    );
    assert_eq!(canon("http://e.org/s?b&a=&a"), "http://e.org/s?a=&a&b");
}

#[test]
fn empty_query_and_empty_parameters_are_removed() {
    assert_eq!(canon("http://e.org/p?"), "http://e.org/p");
    assert_eq!(canon("http://e.org/p?&&"), "http://e.org/p");
    assert_eq!(canon("http://e.org/p?&b=1&&a=2&"), "http://e.org/p?a=2&b=1");
}

#[test]
fn session_and_tracking_parameters_are_dropped() {
    assert_eq!(
        canon(
            "http://e.org/p?id=7&utm_source=x&UTM_Medium=y&fbclid=1&gclid=2&msclkid=3\
             &JSESSIONID=4&PHPSESSID=5&sid=6&sessionid=7&ASPSESSIONIDQQ=8&CFID=9&cftoken=10"
        ),
        "http://e.org/p?id=7"
    );
    // Only the named parameters go; similar names stay.
    assert_eq!(
        canon("http://e.org/p?sidebar=1&utm=2"),
        "http://e.org/p?sidebar=1&utm=2"
    );
    // Everything dropped: no `?` left.
    assert_eq!(canon("http://e.org/p?utm_campaign=z"), "http://e.org/p");
    // Names are compared after percent-normalisation.
    assert_eq!(
        canon("http://e.org/p?utm%5Fsource=x&a=1"),
        "http://e.org/p?a=1"
    );
}

#[test]
fn session_path_parameters_are_dropped() {
    assert_eq!(
        canon("http://e.org/shop/cart.do;jsessionid=0A1B2C?item=3"),
        "http://e.org/shop/cart.do?item=3"
    );
    assert_eq!(canon("http://e.org/a;JSessionID=x/b"), "http://e.org/a/b");
    assert_eq!(
        canon("http://e.org/a;v=2;sid=9;w=3"),
        "http://e.org/a;v=2;w=3"
    );
    assert_eq!(canon("http://e.org/map;lat=50"), "http://e.org/map;lat=50");
}

#[test]
fn drop_list_is_configurable() {
    let none = Canonicalizer::with_drop_params(&[]);
    let got = none.parse("http://e.org/a;jsessionid=1?utm_source=x", None);
    assert_eq!(
        got.map(String::from),
        Ok("http://e.org/a;jsessionid=1?utm_source=x".to_owned())
    );
    let custom = Canonicalizer::with_drop_params(&["Ref".to_owned(), " tr_* ".to_owned()]);
    let got = custom.parse("http://e.org/?ref=1&tr_a=2&tr=3&utm_source=4", None);
    assert_eq!(
        got.map(String::from),
        Ok("http://e.org/?tr=3&utm_source=4".to_owned())
    );
}

#[test]
fn only_http_and_https_are_accepted() {
    let c = Canonicalizer::default();
    for input in [
        "mailto:a@b.org",
        "javascript:void(0)",
        "ftp://e.org/f",
        "file:///etc",
    ] {
        assert!(
            matches!(
                c.parse(input, None),
                Err(UrlError::UnsupportedScheme { .. })
            ),
            "{input}"
        );
    }
    assert!(matches!(
        c.parse("/relative", None),
        Err(UrlError::Invalid { .. })
    ));
    assert!(matches!(
        c.parse("http://", None),
        Err(UrlError::Invalid { .. })
    ));
    assert!(matches!(
        c.parse("http://a b/", None),
        Err(UrlError::Invalid { .. })
    ));
    for input in ["http://./a", "http://.../", "https://%2e%2e/"] {
        assert!(
            matches!(c.parse(input, None), Err(UrlError::EmptyHost { .. })),
            "{input}"
        );
    }
}

#[test]
fn long_urls_are_rejected() {
    let c = Canonicalizer::default();
    let head = "http://e.org/";
    let fits = format!("{head}{}", "a".repeat(MAX_URL_BYTES - head.len()));
    assert_eq!(
        c.parse(&fits, None).map(|u| u.as_str().len()),
        Ok(MAX_URL_BYTES)
    );
    let long = format!("{fits}b");
    let err = c.parse(&long, None);
    assert!(matches!(err, Err(UrlError::TooLong { len, .. }) if len == MAX_URL_BYTES + 1));
    // Judged on the canonical form: tracking junk that is dropped does not count.
    let junk = format!("{head}?utm_source={}", "x".repeat(3000));
    assert_eq!(c.parse(&junk, None).map(String::from), Ok(head.to_owned()));
}

#[test]
fn error_messages_name_the_url() {
    let c = Canonicalizer::default();
    let msg = |input: &str| c.parse(input, None).map_err(|e| e.to_string()).err();
    assert!(msg("mailto:x@y.org").is_some_and(|m| m.contains("mailto:x@y.org")));
    assert!(msg("http://a b/").is_some_and(|m| m.contains("http://a b/")));
    let long = format!("http://e.org/{}", "z".repeat(5000));
    let m = msg(&long).unwrap_or_default();
    assert!(m.contains("http://e.org/zzz") && m.len() < 400, "{m}");
}

#[test]
fn canonicalize_is_idempotent_and_leaves_other_schemes_alone() {
    let c = Canonicalizer::default();
    for input in [
        "http://e.org/a;jsessionid=1/%7e?b=%aa&a=1&&utm_x=2#f",
        "https://[::1]:8443/%2e%2E%2e/x?z&y",
        "http://e.org/a/%2e%2e%2e/b?%41=%42",
    ] {
        let once = c.parse(input, None).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(c.canonicalize(&once), once, "{input}");
    }
    let mail = Url::parse("mailto:a@b.org?subject=x&a=1#f").unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        c.canonicalize(&mail).as_str(),
        "mailto:a@b.org?subject=x&a=1"
    );
}

#[test]
fn host_key_always_names_the_port() {
    let key = |s: &str| Url::parse(s).map(|u| host_key(&u)).unwrap_or_default();
    assert_eq!(key("http://Example.org/a"), "http://example.org:80");
    assert_eq!(key("http://example.org:80/b"), "http://example.org:80");
    assert_eq!(key("https://example.org/"), "https://example.org:443");
    assert_eq!(key("http://example.org:8080/"), "http://example.org:8080");
    assert_eq!(key("http://[::1]/"), "http://[::1]:80");
    assert_eq!(key("foo://h/"), "foo://h");
}

#[test]
fn seed_004_parameter_rules() {
    // The seed's example: `clanek` required, `jazyk` optional with default `cz`,
    // `uzivatel` not listed (dropped).
    let rule = ParamRule {
        host: "example.com".into(),
        path: "/tisk.php".into(),
        required: vec!["clanek".into()],
        defaults: vec![("jazyk".into(), "cz".into())],
        ..ParamRule::default()
    };
    let c = Canonicalizer::default();
    let u = |s: &str| c.parse(s, None).unwrap();
    let apply = |s: &str| rule.apply(&u(s)).map(|u| u.to_string());
    assert_eq!(
        apply("http://example.com/tisk.php?jazyk=cz&clanek=123&uzivatel=987"),
        Ok("http://example.com/tisk.php?clanek=123&jazyk=cz".into())
    );
    // The default is added, so both forms are one page.
    assert_eq!(
        apply("http://example.com/tisk.php?uzivatel=5&clanek=123"),
        Ok("http://example.com/tisk.php?clanek=123&jazyk=cz".into())
    );
    assert_eq!(
        apply("http://example.com/tisk.php?jazyk=en"),
        Err(RuleViolation::Missing("clanek".into()))
    );
    let enumerated = ParamRule {
        enumerated: vec![("jazyk".into(), vec!["cz".into(), "en".into()])],
        ..rule.clone()
    };
    assert_eq!(
        enumerated
            .apply(&u("http://example.com/tisk.php?clanek=1&jazyk=de"))
            .map(|u| u.to_string()),
        Err(RuleViolation::NotAllowed {
            name: "jazyk".into(),
            value: "de".into()
        })
    );
    let rules = [rule];
    assert!(rule_for(&rules, &u("http://EXAMPLE.com/tisk.php?x=1")).is_some());
    assert!(rule_for(&rules, &u("http://example.com/jiny.php?x=1")).is_none());
}

#[test]
fn the_guides_script_rule_example_fills_the_default() {
    // docs/guide/topic-file.md, `[[urls.script]]`, as written there.
    let rule = ParamRule {
        host: "example.com".into(),
        path: "/show.php".into(),
        required: vec!["id".into()],
        enumerated: vec![("lang".into(), vec!["fr".into(), "en".into()])],
        optional: vec!["page".into()],
        defaults: vec![("lang".into(), "fr".into())],
    };
    let c = Canonicalizer::default();
    let apply = |s: &str| {
        rule.apply(&c.parse(s, None).expect("test URL"))
            .map(|u| u.to_string())
    };
    // The default fills the absent parameter: given, and allowed.
    assert_eq!(
        apply("http://example.com/show.php?id=9"),
        Ok("http://example.com/show.php?id=9&lang=fr".into())
    );
    assert_eq!(
        apply("http://example.com/show.php?lang=en&id=9&page=2&x=1"),
        Ok("http://example.com/show.php?id=9&lang=en&page=2".into())
    );
    // A value outside `enumerated` is still refused, and so is a required parameter
    // without a default.
    assert_eq!(
        apply("http://example.com/show.php?id=9&lang=de"),
        Err(RuleViolation::NotAllowed {
            name: "lang".into(),
            value: "de".into()
        })
    );
    assert_eq!(
        apply("http://example.com/show.php?lang=fr"),
        Err(RuleViolation::Missing("id".into()))
    );
    // A required parameter with a default counts as given too.
    let required_default = ParamRule {
        required: vec!["id".into(), "lang".into()],
        enumerated: Vec::new(),
        ..rule.clone()
    };
    assert_eq!(
        required_default
            .apply(
                &c.parse("http://example.com/show.php?id=9", None)
                    .expect("test URL")
            )
            .map(|u| u.to_string()),
        Ok("http://example.com/show.php?id=9&lang=fr".into())
    );
    // An enumerated parameter with no default is still required.
    let no_default = ParamRule {
        defaults: Vec::new(),
        ..rule
    };
    assert_eq!(
        no_default
            .apply(
                &c.parse("http://example.com/show.php?id=9", None)
                    .expect("test URL")
            )
            .map(|u| u.to_string()),
        Err(RuleViolation::Missing("lang".into()))
    );
}

#[test]
fn the_length_limit_is_the_topics() {
    // One limit: the default is `[traps] max_url_length`'s, 2,083 bytes, not 2,048.
    assert_eq!(MAX_URL_BYTES, 2083);
    let head = "http://e.org/";
    let url = |len: usize| format!("{head}{}", "a".repeat(len - head.len()));
    let c = Canonicalizer::default();
    assert_eq!(
        c.parse(&url(2083), None).map(|u| u.as_str().len()),
        Ok(2083)
    );
    for long in [2100, 2123] {
        let Err(UrlError::TooLong {
            len,
            max,
            canonical,
            ..
        }) = c.parse(&url(long), None)
        else {
            panic!("a URL of {long} bytes is over the limit");
        };
        assert_eq!((len, max), (long, 2083));
        // The canonical URL comes with the refusal, for a caller that records it.
        assert_eq!(canonical.as_str(), url(long));
    }
    // A topic's own limit replaces the default.
    let short = Canonicalizer::default().with_max_url_length(100);
    assert!(matches!(
        short.parse(&url(101), None),
        Err(UrlError::TooLong {
            len: 101,
            max: 100,
            ..
        })
    ));
    let long = Canonicalizer::default().with_max_url_length(4000);
    assert_eq!(
        long.parse(&url(2123), None).map(|u| u.as_str().len()),
        Ok(2123)
    );
}
