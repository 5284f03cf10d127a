//! Passwords out of every text glaneur prints or stores: a PostgreSQL connection string's, in
//! any of the spellings libpq and tokio-postgres accept, wherever it appears in the text.
//!
//! **In:** a text: a `--store` value, an error message, a command line. **Out:** the same text
//! with each password replaced by `***`.
//!
//! **Invariants:** every spelling is covered — a URL's user information
//! (`postgres://user:PASSWORD@host`, the password holding `#`, `/`, `@`, `?`, `:` or a space
//! included: the user information ends at the last `@` of the word, or of the line when the
//! word has none), a URL parameter (`?password=PASSWORD`, `sslpassword=`, the name
//! percent-encoded or not), a key-value pair (`password=PASSWORD`, `password = PASSWORD`,
//! `password='PASS WORD'` with `\'` inside); the names are matched whatever their case; a
//! value that never ends (an unclosed quote) is hidden to the end of the text. Redacting too
//! much is allowed, too little never.

/// What replaces a password.
const HIDDEN: &str = "***";

/// `text` with every password of a connection string replaced by `***`.
pub fn redact(text: &str) -> String {
    let mut spans = Vec::new();
    userinfo_spans(text, &mut spans);
    parameter_spans(text, &mut spans);
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
    let lower = text.to_ascii_lowercase();
    // Percent-encoded names: `pass%77ord` is decoded by the URL parser.
    let decoded_names = ["password", "pass%77ord", "p%61ssword", "%70assword"];
    let mut from = 0;
    while from < lower.len() {
        let next = decoded_names
            .iter()
            .filter_map(|name| lower[from..].find(name).map(|i| (from + i, name.len())))
            .min();
        let Some((at, len)) = next else {
            break;
        };
        from = at + len;
        // `…password` only at the end of a name: not `passwords_file`.
        let mut i = at + len;
        let bytes = text.as_bytes();
        if bytes
            .get(i)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_')
        {
            continue;
        }
        while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
            i += 1;
        }
        // `=` or its percent-encoded form in a query.
        if bytes.get(i) == Some(&b'=') {
            i += 1;
        } else if lower[i..].starts_with("%3d") {
            i += 3;
        } else {
            continue;
        }
        while bytes.get(i).is_some_and(|b| *b == b' ' || *b == b'\t') {
            i += 1;
        }
        let end = value_end(text, i);
        if end > i {
            spans.push((i, end));
        }
        from = from.max(end);
    }
}

/// Where the value starting at `i` ends: after its closing quote when it is quoted (the whole
/// rest when the quote is never closed), else at a space, `&`, `#` or a line break.
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
    text[i..]
        .find(|c: char| c.is_whitespace() || matches!(c, '&' | '#' | '"'))
        .map_or(text.len(), |k| i + k)
}

#[cfg(test)]
mod tests {
    use super::redact;

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
