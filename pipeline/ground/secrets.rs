//! Passwords out of every text glaneur prints or stores: a PostgreSQL connection string's, in
//! any of the spellings libpq and tokio-postgres accept, wherever it appears in the text.
//!
//! **In:** a text: a `--store` value, an error message, a command line; the connection strings
//! this process was given ([`remember`]). **Out:** the same text with each password replaced by
//! `***`.
//!
//! **Invariants:** every spelling is covered — a URL's user information
//! (`postgres://user:PASSWORD@host`, the password holding `#`, `/`, `@`, `?`, `:` or a space
//! included: the user information ends at the last `@` of the word, or of the line when the
//! word has none), a URL parameter (`?password=PASSWORD`, `sslpassword=`, the name
//! percent-encoded or not), a key-value pair (`password=PASSWORD`, `password = PASSWORD`,
//! `password='PASS WORD'` with `\'` inside); the names are matched whatever their case; a
//! value that never ends (an unclosed quote) is hidden to the end of the text. A connection
//! string given to this process ([`remember`]) is read alone, where its password's extent is
//! known even when it is malformed (a space in an unquoted value or in a URL), and that
//! password is hidden wherever it appears. Redacting too much is allowed, too little never.

use std::sync::Mutex;

/// What replaces a password.
const HIDDEN: &str = "***";

/// The passwords of the connection strings this process was given, longest first.
static REMEMBERED: Mutex<Vec<String>> = Mutex::new(Vec::new());

/// Remembers the password of `connection` (a `--store` value), read alone: as much as may be
/// its password, even in a malformed string (`password=pass word`, `?password=pass word`).
/// [`redact`] hides it wherever it appears afterwards.
pub fn remember(connection: &str) {
    let mut spans = Vec::new();
    userinfo_spans_in(connection, &mut spans, true);
    parameter_spans_in(connection, &mut spans, true);
    let mut known = REMEMBERED.lock().unwrap_or_else(|p| p.into_inner());
    for (start, end) in spans {
        let whole = &connection[start..end];
        // The parts of a malformed value too (a parser's message may quote one: `unknown
        // option `word``), when long enough not to be any word of a message.
        let parts = whole
            .split(|c: char| c.is_whitespace() || matches!(c, '=' | '&' | '\''))
            .filter(|p| p.chars().count() >= 6);
        for piece in [whole, whole.trim_matches('\'')].into_iter().chain(parts) {
            if !piece.is_empty() && !known.iter().any(|k| k == piece) {
                known.push(piece.to_string());
            }
        }
    }
    known.sort_by_key(|s| std::cmp::Reverse(s.len()));
}

/// `text` with every password of a connection string replaced by `***`.
pub fn redact(text: &str) -> String {
    let mut spans = Vec::new();
    userinfo_spans(text, &mut spans);
    parameter_spans(text, &mut spans);
    let known = REMEMBERED.lock().unwrap_or_else(|p| p.into_inner());
    for secret in known.iter() {
        spans.extend(
            text.match_indices(secret.as_str())
                .map(|(i, s)| (i, i + s.len())),
        );
    }
    // A parser's message quoting a piece of a malformed password (`unknown option `word``).
    let mut from = 0;
    while let Some(open) = text[from..].find('`').map(|k| from + k + 1) {
        let Some(close) = text[open..].find('`').map(|k| open + k) else {
            break;
        };
        let quoted = &text[open..close];
        if !quoted.is_empty() && known.iter().any(|k| k.contains(quoted)) {
            spans.push((open, close));
        }
        from = close + 1;
    }
    drop(known);
    if spans.is_empty() {
        return text.to_string();
    }
    spans.sort_unstable();
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for (start, end) in spans {
        if end <= at {
            continue;
        }
        let start = start.max(at);
        out.push_str(&text[at..start]);
        out.push_str(HIDDEN);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// The passwords of URLs' user information: after the first `:` of what lies between `://`
/// and the last `@` before the end of the word (of the line when the word has no `@` and its
/// user part has a `:`: a password with a space in it).
fn userinfo_spans(text: &str, spans: &mut Vec<(usize, usize)>) {
    userinfo_spans_in(text, spans, false);
}

/// [`userinfo_spans`]; `alone`: `text` is one connection string, whose user information runs
/// to its last `@` before the query (a raw space in a password included).
fn userinfo_spans_in(text: &str, spans: &mut Vec<(usize, usize)>, alone: bool) {
    if alone {
        if let Some(start) = text.find("://").map(|k| k + 3) {
            let rest = &text[start..];
            let before_query = rest.find('?').map_or(rest, |q| &rest[..q]);
            if let Some(at) = before_query.rfind('@').or_else(|| rest.rfind('@'))
                && let Some(colon) = rest[..at].find(':')
            {
                spans.push((start + colon + 1, start + at));
            }
        }
        return;
    }
    let mut from = 0;
    while let Some(found) = text[from..].find("://") {
        let start = from + found + 3;
        from = start;
        let line_end = text[start..]
            .find(['\n', '\r'])
            .map_or(text.len(), |i| start + i);
        let word_end = text[start..line_end]
            .find(char::is_whitespace)
            .map_or(line_end, |i| start + i);
        let word = &text[start..word_end];
        let at = match word.rfind('@') {
            Some(i) => start + i,
            None => {
                // `postgres://user:pass word@host`: the `@` comes after a space.
                let Some(colon) = word.find(':') else {
                    continue;
                };
                let host_port = word[colon + 1..]
                    .split(['/', '?'])
                    .next()
                    .is_some_and(|p| !p.is_empty() && p.bytes().all(|b| b.is_ascii_digit()));
                match text[word_end..line_end].find('@') {
                    Some(i) if !host_port => word_end + i,
                    _ => continue,
                }
            }
        };
        if let Some(colon) = text[start..at].find(':') {
            spans.push((start + colon + 1, at));
        }
    }
}

/// The values of `…password` parameters: `name=value` in a URL's query (up to `&`, `#` or the
/// end of the word) or a key-value string (`name = value`, `name='quoted value'`).
fn parameter_spans(text: &str, spans: &mut Vec<(usize, usize)>) {
    parameter_spans_in(text, spans, false);
}

/// [`parameter_spans`]; `alone`: `text` is one connection string, so an unquoted value runs on
/// over spaces up to the next `name=` (a key-value string) or to the end of the query (a URL):
/// a value with a space in it is malformed, and all of it may be the password.
fn parameter_spans_in(text: &str, spans: &mut Vec<(usize, usize)>, alone: bool) {
    let bytes = text.as_bytes();
    let lower = text.to_ascii_lowercase();
    let mut from = 0;
    while from < text.len() {
        // The next `=`, or its percent-encoded form in a query.
        let Some(eq) = lower[from..].find(['=', '%']).map(|k| from + k) else {
            break;
        };
        let width = if bytes[eq] == b'=' {
            1
        } else if lower[eq..].starts_with("%3d") {
            3
        } else {
            from = eq + 1;
            continue;
        };
        from = eq + width;
        // The name before it (spaces allowed between): a word of a key-value string or a
        // parameter of a URL's query, percent-decoded as the connection library decodes it.
        let name_end = text[..eq].trim_end_matches([' ', '\t']).len();
        let name_start = text[..name_end]
            .rfind(|c: char| c.is_whitespace() || matches!(c, '?' | '&' | '"' | '\'' | '(' | ','))
            .map_or(0, |k| k + 1);
        let name = percent_decoded(&text[name_start..name_end]).to_ascii_lowercase();
        if !name.ends_with("password") {
            continue;
        }
        let mut i = eq + width;
        while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
            i += 1;
        }
        let mut end = value_end(text, i);
        if alone && bytes.get(i) != Some(&b'\'') {
            end = alone_value_end(text, i, text.contains("://"));
        }
        if end > i {
            spans.push((i, end));
        }
        from = from.max(end);
    }
}

/// `text` with its `%XX` escapes decoded (bytes read as Latin-1: only ASCII names matter).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).copied().and_then(hex),
            bytes.get(i + 2).copied().and_then(hex),
        ) {
            (b'%', Some(h), Some(l)) => {
                out.push(char::from((h * 16 + l) as u8));
                i += 3;
            }
            (b, ..) => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    out
}

/// The parameters of a libpq connection string (PostgreSQL 17's `conninfo` keywords).
const PARAMETERS: &[&str] = &[
    "application_name",
    "channel_binding",
    "client_encoding",
    "connect_timeout",
    "dbname",
    "fallback_application_name",
    "gssdelegation",
    "gssencmode",
    "gsslib",
    "host",
    "hostaddr",
    "keepalives",
    "keepalives_count",
    "keepalives_idle",
    "keepalives_interval",
    "krbsrvname",
    "load_balance_hosts",
    "options",
    "passfile",
    "password",
    "port",
    "replication",
    "require_auth",
    "requirepeer",
    "service",
    "ssl_max_protocol_version",
    "ssl_min_protocol_version",
    "sslcert",
    "sslcertmode",
    "sslcompression",
    "sslcrl",
    "sslcrldir",
    "sslkey",
    "sslmode",
    "sslnegotiation",
    "sslpassword",
    "sslrootcert",
    "sslsni",
    "target_session_attrs",
    "tcp_user_timeout",
    "user",
];

/// Where an unquoted value starting at `i` ends in a connection string read alone: before the
/// next piece that starts a `name=` pair — a word in a key-value string, a `&`-separated
/// parameter in a URL's query — else at the end (what lies between is malformed, and may all
/// be the password).
fn alone_value_end(text: &str, i: usize, url: bool) -> usize {
    // Only a parameter libpq knows starts a new pair: `x=y` after a space may be the password.
    let starts_pair = |piece: &str| {
        let name: String = piece
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let after = piece[name.len()..].trim_start_matches([' ', '\t']);
        PARAMETERS.contains(&name.to_ascii_lowercase().as_str())
            && (after.starts_with('=') || after.to_ascii_lowercase().starts_with("%3d"))
    };
    let mut at = i;
    while at < text.len() {
        // The next piece: after the `&` in a URL, after the next spaces in a key-value string.
        let start = if url {
            match text[at..].find('&') {
                Some(k) => at + k + 1,
                None => return text.len(),
            }
        } else {
            let Some(space) = text[at..].find(char::is_whitespace) else {
                return text.len();
            };
            match text[at + space..].find(|c: char| !c.is_whitespace()) {
                Some(k) => at + space + k,
                None => return text.len(),
            }
        };
        if starts_pair(&text[start..]) {
            // The value ends before the separator (and the spaces before the pair).
            return if url {
                start - 1
            } else {
                text[..start].trim_end().len()
            };
        }
        at = start;
    }
    text.len()
}

/// Where the value starting at `i` ends: after its closing quote when it is quoted (the whole
/// rest when the quote is never closed), else at a space, `&`, `"` or a line break (a `#` may
/// be in a password), a colon just before a space left out.
fn value_end(text: &str, i: usize) -> usize {
    let bytes = text.as_bytes();
    if bytes.get(i) == Some(&b'\'') {
        let mut j = i + 1;
        while j < bytes.len() {
            match bytes[j] {
                b'\\' => j += 2,
                b'\'' => return j + 1,
                _ => j += 1,
            }
        }
        return text.len();
    }
    let end = text[i..]
        .find(|c: char| c.is_whitespace() || matches!(c, '&' | '"'))
        .map_or(text.len(), |k| i + k);
    // In a message, `VALUE: the error`: the colon is the message's.
    match text[i..end].strip_suffix(':') {
        Some(value) if text[end..].starts_with(char::is_whitespace) => i + value.len(),
        _ => end,
    }
}

#[cfg(test)]
mod tests {
    use super::{redact, remember};

    #[test]
    fn every_spelling_of_a_password_is_hidden() {
        let cases = [
            (
                "postgres://glaneur:s3cret@db.example:5432/crawls",
                "postgres://glaneur:***@db.example:5432/crawls",
            ),
            (
                "postgres://glaneur:s3cret@db.example:99999/crawls",
                "postgres://glaneur:***@db.example:99999/crawls",
            ),
            (
                "postgresql://u:pa#ss/wo@rd?x@host/db",
                "postgresql://u:***@host/db",
            ),
            (
                "postgres://u@host/db?sslmode=disable&password=s3cret&x=1",
                "postgres://u@host/db?sslmode=disable&password=***&x=1",
            ),
            (
                "postgres://u@host/db?PASSWORD=s3cret",
                "postgres://u@host/db?PASSWORD=***",
            ),
            (
                "postgres://u@host/db?pass%77ord=s3cret",
                "postgres://u@host/db?pass%77ord=***",
            ),
            (
                "postgres://u@host/db?password%3Ds3cret",
                "postgres://u@host/db?password%3D***",
            ),
            (
                "postgres://u@host/db?passwor%64=s3cret",
                "postgres://u@host/db?passwor%64=***",
            ),
            (
                "postgres://u@host/db?p%61%73sword=s3cret&x=1",
                "postgres://u@host/db?p%61%73sword=***&x=1",
            ),
            (
                "host=db user=u password=s3cret dbname=crawls",
                "host=db user=u password=*** dbname=crawls",
            ),
            (
                "host=db password = s3cret dbname=crawls",
                "host=db password = *** dbname=crawls",
            ),
            (
                "host=db password='s3 cret' dbname=crawls",
                "host=db password=*** dbname=crawls",
            ),
            (
                "host=db password='it\\'s here' dbname=crawls",
                "host=db password=*** dbname=crawls",
            ),
            ("host=db password='never closed", "host=db password=***"),
            ("host=db sslpassword=s3cret", "host=db sslpassword=***"),
            (
                "cannot connect to postgres://u:my secret@db/crawls: refused",
                "cannot connect to postgres://u:***@db/crawls: refused",
            ),
            (
                "glaneur worker t --store postgres://u:pw@h/db --name w1",
                "glaneur worker t --store postgres://u:***@h/db --name w1",
            ),
        ];
        for (given, want) in cases {
            let got = redact(given);
            assert_eq!(got, want, "{given}");
            assert!(!got.contains("s3cret") && !got.contains("cret"), "{got}");
        }
    }

    #[test]
    fn a_remembered_connection_string_hides_all_of_a_malformed_password() {
        for (store, secret) in [
            ("host=h port=1 password=M=MbR ESWHihbto", "M=MbR ESWHihbto"),
            ("host=h password=4#=Wyo =/dkb dbname=x", "4#=Wyo =/dkb"),
            (
                "postgres://u@h:1/db?password=SRW@/Qnw AV?S/oVp",
                "SRW@/Qnw AV?S/oVp",
            ),
            (
                "postgres://u@h:1/db?password=ab cd&sslmode=disable",
                "ab cd",
            ),
            ("host=h password = 7g@Eq#H8RE'o", "7g@Eq#H8RE'o"),
            ("host=h port=1 dbname=db password=abc#defXYZ", "abc#defXYZ"),
            (
                "host=h port=1 password = abc&defXYZ dbname=db",
                "abc&defXYZ",
            ),
            ("postgres://u@h:1/db?password=abc#defXYZ", "abc#defXYZ"),
            (
                "postgres://u@h:1/db?password=HVUJ6iACEc9C&Fab:gt?9",
                "HVUJ6iACEc9C&Fab:gt?9",
            ),
            (
                "postgres://u@h:1/db?password=x1&y2z&sslmode=disable",
                "x1&y2z",
            ),
            ("host=h password = np':@MZ qBwdVaH=Lm", "np':@MZ qBwdVaH=Lm"),
            ("postgres://u:p@ss w0rdy1@h/db", "p@ss w0rdy1"),
            ("host=h password=qzxw abcd", "qzxw abcd"),
        ] {
            remember(store);
            let message = format!(
                "cannot connect to --store {store}: invalid connection string: unknown option \
                 `{}`",
                secret
                    .split_whitespace()
                    .last()
                    .unwrap_or_default()
                    .split('=')
                    .next()
                    .unwrap_or_default()
            );
            let shown = redact(&message);
            for piece in secret.as_bytes().windows(4) {
                let piece = String::from_utf8_lossy(piece);
                assert!(!shown.contains(piece.as_ref()), "{piece} in {shown}");
            }
            assert!(shown.contains(": invalid connection string"), "{shown}");
        }
    }

    #[test]
    fn texts_without_a_password_are_kept() {
        for text in [
            "postgres://u@host:5432/db",
            "postgres://host:5432/db: connection refused, see admin@example.org",
            "https://docs.example/passwords_file=x",
            "the page https://example.org/a:b was fetched",
            "no secret here",
            "",
        ] {
            assert_eq!(redact(text), text);
        }
    }
}
