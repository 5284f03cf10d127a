//! Google's robots.txt conformance suite (google/robotstxt-spec-test, Apache-2.0) run
//! against `stages::web::robots`, in `tests/data/robots/correctness/`.
//!
//! The crate behind `stages::web::robots` was chosen by running these 146 cases on both candidates
//! of the manifest: bare, robotxt 0.7.0 passed 132 and texting_robots 0.2.2 passed 134; with
//! our pre-pass (partial BOM skipped, `User-agent` values cut to their product token) both
//! pass 142. robotxt was kept: its misses are Google-only behaviours we reject anyway, it
//! normalises percent-encoding like our URL canonicaliser (texting_robots does not, so
//! `Allow: /%7Ea` would miss our canonical `/~a`), and it caps the body at 500 KiB and encodes
//! RFC 9309's status-code rules. The printed table keeps the comparison between the bare
//! chosen crate and our module. Every case must pass except the divergences listed below, each
//! argued, and each listed divergence must still fail (so the list stays honest).
//!
//! Run with `--nocapture` to see the table.

use crate::common;

use std::collections::BTreeMap;

use stages::web::robots::Robots;
use textproto::{Value, all, one};

/// A reader for the small subset of the protobuf text format that Google's robots.txt
/// conformance files use: `name: value`, `name { … }`, `name: [ … ]`, C-escaped strings
/// whose adjacent literals concatenate, enum identifiers and `#` comments.
mod textproto {
    /// One parsed value.
    #[derive(Debug, Clone)]
    pub enum Value {
        /// A string literal (bytes: `\xHH` escapes need not be UTF-8).
        Bytes(Vec<u8>),
        /// A bare identifier (enum value, number, `true`).
        Ident(String),
        /// A nested message.
        Message(Message),
        /// A `[ … ]` list.
        List(Vec<Value>),
    }

    /// A message: its fields in file order.
    pub type Message = Vec<(String, Value)>;

    #[derive(Debug, Clone, PartialEq)]
    enum Token {
        Ident(String),
        Str(Vec<u8>),
        Punct(u8),
    }

    fn unescape(body: &[u8], out: &mut Vec<u8>) -> Result<(), String> {
        let mut i = 0;
        while i < body.len() {
            let c = body[i];
            if c != b'\\' {
                out.push(c);
                i += 1;
                continue;
            }
            let e = *body.get(i + 1).ok_or("dangling backslash")?;
            i += 2;
            match e {
                b'n' => out.push(b'\n'),
                b'r' => out.push(b'\r'),
                b't' => out.push(b'\t'),
                b'a' => out.push(0x07),
                b'b' => out.push(0x08),
                b'f' => out.push(0x0c),
                b'v' => out.push(0x0b),
                b'\\' | b'\'' | b'"' | b'?' => out.push(e),
                b'x' | b'X' => {
                    let mut v: u32 = 0;
                    let mut n = 0;
                    while n < 2 && i < body.len() && body[i].is_ascii_hexdigit() {
                        v = v * 16 + char::from(body[i]).to_digit(16).unwrap_or(0);
                        i += 1;
                        n += 1;
                    }
                    if n == 0 {
                        return Err("\\x without hex digits".into());
                    }
                    out.push(v as u8);
                }
                b'0'..=b'7' => {
                    let mut v: u32 = u32::from(e - b'0');
                    let mut n = 1;
                    while n < 3 && i < body.len() && (b'0'..=b'7').contains(&body[i]) {
                        v = v * 8 + u32::from(body[i] - b'0');
                        i += 1;
                        n += 1;
                    }
                    out.push((v & 0xff) as u8);
                }
                other => return Err(format!("unknown escape \\{}", char::from(other))),
            }
        }
        Ok(())
    }

    fn tokenize(src: &[u8]) -> Result<Vec<Token>, String> {
        let mut tokens = Vec::new();
        let mut i = 0;
        while i < src.len() {
            let c = src[i];
            if c.is_ascii_whitespace() {
                i += 1;
            } else if c == b'#' {
                while i < src.len() && src[i] != b'\n' {
                    i += 1;
                }
            } else if c == b'"' || c == b'\'' {
                let quote = c;
                let start = i + 1;
                i = start;
                while i < src.len() && src[i] != quote {
                    i += if src[i] == b'\\' { 2 } else { 1 };
                }
                if i >= src.len() {
                    return Err("unterminated string".into());
                }
                let mut bytes = Vec::new();
                unescape(&src[start..i], &mut bytes)?;
                i += 1;
                // Adjacent literals concatenate, as in C.
                if let Some(Token::Str(prev)) = tokens.last_mut() {
                    prev.extend_from_slice(&bytes);
                } else {
                    tokens.push(Token::Str(bytes));
                }
            } else if b"{}[]:,;<>".contains(&c) {
                tokens.push(Token::Punct(c));
                i += 1;
            } else if c.is_ascii_alphanumeric() || c == b'_' || c == b'-' || c == b'.' {
                let start = i;
                while i < src.len() && (src[i].is_ascii_alphanumeric() || b"_-.+".contains(&src[i]))
                {
                    i += 1;
                }
                tokens.push(Token::Ident(String::from_utf8_lossy(&src[start..i]).into()));
            } else {
                return Err(format!("unexpected byte {c:#x} at {i}"));
            }
        }
        Ok(tokens)
    }

    struct Parser {
        tokens: Vec<Token>,
        pos: usize,
    }

    impl Parser {
        fn peek(&self) -> Option<&Token> {
            self.tokens.get(self.pos)
        }

        fn next(&mut self) -> Option<Token> {
            let t = self.tokens.get(self.pos).cloned();
            self.pos += 1;
            t
        }

        fn eat(&mut self, p: u8) -> bool {
            if self.peek() == Some(&Token::Punct(p)) {
                self.pos += 1;
                true
            } else {
                false
            }
        }

        /// Fields until `close` (or the end of input when `close` is None).
        fn message(&mut self, close: Option<u8>) -> Result<Message, String> {
            let mut fields = Message::new();
            loop {
                if let Some(c) = close
                    && self.eat(c)
                {
                    return Ok(fields);
                }
                let name = match self.next() {
                    None if close.is_none() => return Ok(fields),
                    Some(Token::Ident(name)) => name,
                    other => return Err(format!("expected a field name, got {other:?}")),
                };
                let has_colon = self.eat(b':');
                let value = self.value(has_colon)?;
                fields.push((name, value));
                // Field separators are optional.
                let _ = self.eat(b',') || self.eat(b';');
            }
        }

        fn value(&mut self, after_colon: bool) -> Result<Value, String> {
            match self.next() {
                Some(Token::Punct(b'{')) => Ok(Value::Message(self.message(Some(b'}'))?)),
                Some(Token::Punct(b'<')) => Ok(Value::Message(self.message(Some(b'>'))?)),
                Some(Token::Punct(b'[')) if after_colon => {
                    let mut items = Vec::new();
                    if self.eat(b']') {
                        return Ok(Value::List(items));
                    }
                    loop {
                        items.push(self.value(true)?);
                        if self.eat(b']') {
                            return Ok(Value::List(items));
                        }
                        if !self.eat(b',') {
                            return Err("expected ',' or ']' in a list".into());
                        }
                    }
                }
                Some(Token::Str(bytes)) if after_colon => Ok(Value::Bytes(bytes)),
                Some(Token::Ident(ident)) if after_colon => Ok(Value::Ident(ident)),
                other => Err(format!("unexpected value token {other:?}")),
            }
        }
    }

    /// Parses a whole file into its top-level message.
    pub fn parse(src: &[u8]) -> Result<Message, String> {
        let tokens = tokenize(src)?;
        let mut parser = Parser { tokens, pos: 0 };
        parser.message(None)
    }

    /// Every value of a repeated field (`name: [a, b]` and repeated `name: a` alike).
    pub fn all<'a>(message: &'a Message, name: &str) -> Vec<&'a Value> {
        let mut out = Vec::new();
        for (field, value) in message {
            if field == name {
                match value {
                    Value::List(items) => out.extend(items.iter()),
                    other => out.push(other),
                }
            }
        }
        out
    }

    /// The single value of a field, if present.
    pub fn one<'a>(message: &'a Message, name: &str) -> Option<&'a Value> {
        message
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, v)| v)
    }
}

/// A case we deliberately answer differently from Google: (file stem, a line of the
/// robots.txt, test URL, why).
const DIVERGENCES: [(&str, &str, &str, &str); 4] = [
    (
        "non-ascii-paths",
        "Allow: /foo/bar/ツ",
        "http://foo.bar/foo/bar/ツ",
        "we match the URL as sent on the wire, percent-encoded (RFC 9309 §2.2.2 compares \
         encoded forms), so `ツ` and `%E3%83%84` are one path; Google's case assumes a caller \
         that passes raw UTF-8",
    ),
    (
        "non-ascii-paths",
        "Allow: /foo/bar/%E3%83%84",
        "http://foo.bar/foo/bar/ツ",
        "same as above: the request line carries `/foo/bar/%E3%83%84`, which the rule allows",
    ),
    (
        "non-ascii-paths",
        "Allow: /foo/bar/%62%61%7A",
        "http://foo.bar/foo/bar/baz",
        "RFC 3986 §2.3 makes `%62%61%7A` and `baz` the same; our URL canonicaliser decodes \
         unreserved escapes before fetching, so the rule must match the decoded path",
    ),
    (
        "index-page",
        "Allow: /allowed-slash/index.html",
        "http://foo.com/allowed-slash/",
        "Google-only guess that allowing `index.html` allows its directory; not in RFC 9309, \
         and a polite crawler does not fetch what was not allowed",
    ),
];

/// One expectation of the suite.
struct Case {
    file: String,
    robotstxt: Vec<u8>,
    url: String,
    useragent: String,
    allowed: bool,
}

fn bytes(value: Option<&Value>) -> Vec<u8> {
    match value {
        Some(Value::Bytes(bytes)) => bytes.clone(),
        _ => Vec::new(),
    }
}

fn text(value: Option<&Value>) -> String {
    String::from_utf8(bytes(value)).expect("test URLs and user agents are UTF-8")
}

fn load_cases() -> Vec<Case> {
    let dir = common::test_data().join("robots").join("correctness");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("robots/correctness is readable")
        .map(|entry| entry.expect("directory entry").path())
        .filter(|path| path.extension().is_some_and(|ext| ext == "textproto"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "no .textproto file in {}", dir.display());

    let mut cases = Vec::new();
    for path in files {
        let stem = path
            .file_stem()
            .expect("file stem")
            .to_string_lossy()
            .into_owned();
        let src = std::fs::read(&path).expect("readable textproto");
        let top = textproto::parse(&src).unwrap_or_else(|e| panic!("{stem}: {e}"));
        let before = cases.len();
        for test in all(&top, "tests") {
            let Value::Message(test) = test else {
                panic!("{stem}: `tests` holds messages")
            };
            let robotstxt = bytes(one(test, "robotstxt"));
            for expectation in all(test, "test_expectations") {
                let Value::Message(e) = expectation else {
                    panic!("{stem}: `test_expectations` holds messages")
                };
                let outcome = match one(e, "expected_outcome") {
                    Some(Value::Ident(outcome)) => outcome.as_str(),
                    other => panic!("{stem}: bad expected_outcome {other:?}"),
                };
                cases.push(Case {
                    file: stem.clone(),
                    robotstxt: robotstxt.clone(),
                    url: text(one(e, "testurl")),
                    useragent: text(one(e, "useragent")),
                    allowed: match outcome {
                        "ALLOWED" => true,
                        "DISALLOWED" => false,
                        other => panic!("{stem}: unknown outcome {other}"),
                    },
                });
            }
        }
        // The reader must not lose an expectation: count them in the raw text as well.
        let raw = String::from_utf8_lossy(&src)
            .matches("expected_outcome:")
            .count();
        assert_eq!(cases.len() - before, raw, "{stem}: expectations read");
    }
    cases
}

/// The path and query a client sends for the test URL (an empty test URL means `/`, as in
/// Google's matcher).
fn request_target(url: &str) -> String {
    if url.is_empty() {
        return "/".to_owned();
    }
    let parsed = url::Url::parse(url).unwrap_or_else(|e| panic!("test URL {url}: {e}"));
    parsed[url::Position::BeforePath..url::Position::AfterQuery].to_owned()
}

fn divergence(case: &Case) -> Option<&'static str> {
    let body = String::from_utf8_lossy(&case.robotstxt);
    DIVERGENCES
        .iter()
        .find(|(file, line, url, _)| {
            *file == case.file && body.lines().any(|l| l == *line) && *url == case.url
        })
        .map(|(_, _, _, why)| *why)
}

#[test]
fn google_conformance_suite() {
    let cases = load_cases();

    // file -> (cases, passed by stages::web::robots, passed by bare robotxt)
    let mut table: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    let mut unexpected = Vec::new();
    let mut diverged = 0;
    for case in &cases {
        let target = request_target(&case.url);
        let ours = Robots::from_response(200, &case.robotstxt, &case.useragent);
        let ours_ok = ours.is_allowed(&target) == case.allowed;
        let bare = robotxt::Robots::parse(&case.robotstxt, case.useragent.as_str());
        let bare_ok = bare.is_allowed(&target) == case.allowed;

        let row = table.entry(case.file.as_str()).or_default();
        row.0 += 1;
        row.1 += usize::from(ours_ok);
        row.2 += usize::from(bare_ok);

        match (ours_ok, divergence(case)) {
            (true, None) => {}
            (false, Some(_)) => diverged += 1,
            (false, None) => unexpected.push(format!(
                "FAILED {}: {:?} as {:?} expected {} with robots.txt {:?}",
                case.file,
                case.url,
                case.useragent,
                if case.allowed {
                    "ALLOWED"
                } else {
                    "DISALLOWED"
                },
                String::from_utf8_lossy(&case.robotstxt),
            )),
            (true, Some(why)) => unexpected.push(format!(
                "listed divergence now passes, remove it from DIVERGENCES: {} {:?} ({why})",
                case.file, case.url
            )),
        }
    }

    println!(
        "{:<32} {:>5} {:>9} {:>14}",
        "file", "cases", "stages", "bare robotxt"
    );
    let mut totals = (0, 0, 0);
    for (file, (n, ours, bare)) in &table {
        println!("{file:<32} {n:>5} {ours:>9} {bare:>14}");
        totals = (totals.0 + n, totals.1 + ours, totals.2 + bare);
    }
    println!(
        "{:<32} {:>5} {:>9} {:>14}",
        "TOTAL", totals.0, totals.1, totals.2
    );
    println!(
        "deliberate divergences: {diverged} (listed: {})",
        DIVERGENCES.len()
    );

    assert!(unexpected.is_empty(), "{}", unexpected.join("\n"));
    assert_eq!(
        diverged,
        DIVERGENCES.len(),
        "every listed divergence is still seen"
    );
    assert_eq!(totals.1 + diverged, totals.0);
}

#[test]
fn textproto_reader() {
    let src = br#"# comment
        tests: [
          { robotstxt: "a\x41\101\n" 'b\'\"' "\xEF\x11"
            test_expectations: [ { testurl: "" expected_outcome: ALLOWED } ] },
          { robotstxt: "" }
        ]"#;
    let top = textproto::parse(src).expect("parses");
    let tests = all(&top, "tests");
    assert_eq!(tests.len(), 2);
    let Value::Message(first) = tests[0] else {
        panic!("a message")
    };
    assert_eq!(
        bytes(one(first, "robotstxt")),
        b"aAA\nb'\"\xEF\x11".to_vec()
    );
    let expectations = all(first, "test_expectations");
    let Value::Message(e) = expectations[0] else {
        panic!("a message")
    };
    assert!(matches!(one(e, "expected_outcome"), Some(Value::Ident(i)) if i == "ALLOWED"));
    assert!(textproto::parse(b"tests: [ { robotstxt: \"open").is_err());
    assert!(textproto::parse(b"x: \"\\q\"").is_err());
}
