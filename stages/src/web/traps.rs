//! Crawler-trap rules: URL shapes that a site can generate without end (calendars, session
//! paths that nest, faceted listings), each refused with its own reason.
//!
//! **In:** a canonical URL and the limits of the topic's `[traps]` table; for the two counting
//! rules, how many URLs of the same kind the crawl already accepted from the server.
//! **Out:** `Ok(())` or the [`Trap`] rule that refuses the URL.
//!
//! **Invariants:** the rules look at the URL only (no fetch is needed to refuse a trap, so a
//! trap costs at most the pages accepted before a rule fires); every rule has a stable reason
//! name recorded in `crawl.sqlite`; the shape rules are pure functions of the URL, the counting
//! rules are pure functions of the URL and a count kept by the caller.
//!
//! The rules follow what long-running crawlers converged on: Heritrix's
//! `TooManyPathSegmentsDecideRule` (path depth), `PathologicalPathDecideRule` (a segment
//! repeated three times in a row) and its URI length limit (2,083, the old IE limit), and
//! Mercator's observation that calendars are the commonest endless generator.

use url::Url;

/// The limits (see `[traps]` in the topic reference).
#[derive(Debug, Clone, PartialEq)]
pub struct TrapLimits {
    /// Longest URL, in bytes.
    pub max_url_length: usize,
    /// Most path segments.
    pub max_path_depth: usize,
    /// Most consecutive repetitions of a segment or of a run of up to three segments.
    pub max_repeats: usize,
    /// Distinct query strings per (server, path).
    pub max_query_variants: u32,
    /// Calendar-like URLs per server.
    pub max_calendar_pages: u32,
}

impl Default for TrapLimits {
    fn default() -> TrapLimits {
        TrapLimits {
            max_url_length: super::urlnorm::MAX_URL_BYTES,
            max_path_depth: 16,
            max_repeats: 2,
            max_query_variants: 500,
            max_calendar_pages: 100,
        }
    }
}

/// The rule that refused a URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Trap {
    /// Longer than `max_url_length`.
    UrlLength,
    /// More segments than `max_path_depth`.
    PathDepth,
    /// A run of segments repeated more than `max_repeats` times in a row.
    RepeatedSegments,
    /// The path already had `max_query_variants` distinct query strings.
    QueryVariants,
    /// The server already gave `max_calendar_pages` calendar-like URLs.
    Calendar,
}

impl Trap {
    /// What the rule means, for the detail column.
    pub fn explain(self, limits: &TrapLimits) -> String {
        match self {
            Trap::UrlLength => format!("URL longer than {} bytes", limits.max_url_length),
            Trap::PathDepth => format!("more than {} path segments", limits.max_path_depth),
            Trap::RepeatedSegments => format!(
                "a path segment (or run of segments) repeated more than {} times in a row",
                limits.max_repeats
            ),
            Trap::QueryVariants => format!(
                "this path already has {} distinct query strings",
                limits.max_query_variants
            ),
            Trap::Calendar => format!(
                "the server already gave {} calendar-like URLs",
                limits.max_calendar_pages
            ),
        }
    }
}

/// The rules that need nothing but the URL.
pub fn check_shape(url: &Url, limits: &TrapLimits) -> Result<(), Trap> {
    if url.as_str().len() > limits.max_url_length {
        return Err(Trap::UrlLength);
    }
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|seg| !seg.is_empty()).collect())
        .unwrap_or_default();
    if segments.len() > limits.max_path_depth {
        return Err(Trap::PathDepth);
    }
    if has_repeated_run(&segments, limits.max_repeats) {
        return Err(Trap::RepeatedSegments);
    }
    Ok(())
}

/// Whether a run of 1–3 segments occurs more than `max_repeats` times in a row.
fn has_repeated_run(segments: &[&str], max_repeats: usize) -> bool {
    let times = max_repeats + 1;
    for run in 1..=3 {
        if run * times > segments.len() {
            break;
        }
        for start in 0..=segments.len() - run * times {
            let first = &segments[start..start + run];
            if (1..times).all(|k| &segments[start + k * run..start + (k + 1) * run] == first) {
                return true;
            }
        }
    }
    false
}

/// The key of the query-variants rule: the path, when the URL has a query (None otherwise).
/// The caller counts distinct query strings per (server, key).
pub fn query_variant_key(url: &Url) -> Option<&str> {
    url.query().filter(|q| !q.is_empty()).map(|_| url.path())
}

/// Query parameter names that make a page a date view.
const CALENDAR_PARAMS: &[&str] = &[
    "year",
    "month",
    "day",
    "date",
    "week",
    "yr",
    "mon",
    "mois",
    "annee",
    "jour",
    "semaine",
    "cal",
    "calendar",
    "calendrier",
    "agenda",
    "time",
    "ym",
    "ymd",
    "tx_cal_controller",
];

/// Whether the URL looks like a page of a calendar: a `year/month[/day]` path, a query
/// parameter named like a date, or a date value (`2026-11`, `2026-11-22`, `20261122`) in the
/// query. Archive pages of blogs match too; the per-server cap keeps the first ones.
pub fn is_calendar_like(url: &Url) -> bool {
    if let Some(segments) = url.path_segments() {
        let segments: Vec<&str> = segments.collect();
        for pair in segments.windows(2) {
            if is_year(pair[0]) && is_month(pair[1]) {
                return true;
            }
        }
        if segments.iter().any(|s| is_date_value(s)) {
            return true;
        }
    }
    for (name, value) in url.query_pairs() {
        let name = name.to_ascii_lowercase();
        if CALENDAR_PARAMS.contains(&name.as_str())
            || name.ends_with("_date")
            || name.ends_with("[date]")
            || is_date_value(&value)
        {
            return true;
        }
    }
    false
}

fn is_year(s: &str) -> bool {
    s.len() == 4
        && s.bytes().all(|b| b.is_ascii_digit())
        && (s.starts_with("19") || s.starts_with("20"))
}

fn is_month(s: &str) -> bool {
    s.len() <= 2 && s.parse::<u8>().is_ok_and(|m| (1..=12).contains(&m))
}

/// `YYYY-MM`, `YYYY-MM-DD` or `YYYYMMDD`.
fn is_date_value(s: &str) -> bool {
    let b = s.as_bytes();
    let digits = |r: std::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    match b.len() {
        7 => digits(0..4) && b[4] == b'-' && digits(5..7) && is_year(&s[..4]),
        10 => {
            digits(0..4)
                && b[4] == b'-'
                && digits(5..7)
                && b[7] == b'-'
                && digits(8..10)
                && is_year(&s[..4])
        }
        8 => digits(0..8) && is_year(&s[..4]) && is_month(&s[4..6]),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn u(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    #[test]
    fn shape_rules() {
        let l = TrapLimits::default();
        assert_eq!(check_shape(&u("http://a.test/a/b/c.html"), &l), Ok(()));
        let long = format!("http://a.test/{}", "x".repeat(3000));
        assert_eq!(check_shape(&u(&long), &l), Err(Trap::UrlLength));
        let deep = format!("http://a.test/{}", "d/".repeat(17));
        assert_eq!(check_shape(&u(&deep), &l), Err(Trap::PathDepth));
        // Heritrix's pathological path: the same segment three times in a row.
        assert_eq!(
            check_shape(&u("http://a.test/img/img/img/x.png"), &l),
            Err(Trap::RepeatedSegments)
        );
        assert_eq!(
            check_shape(&u("http://a.test/a/b/a/b/a/b/"), &l),
            Err(Trap::RepeatedSegments)
        );
        assert_eq!(
            check_shape(&u("http://a.test/x/a/b/c/a/b/c/a/b/c/y"), &l),
            Err(Trap::RepeatedSegments)
        );
        // Twice is normal (`/fr/fr/` happens on real sites), and so are non-adjacent repeats.
        assert_eq!(check_shape(&u("http://a.test/fr/fr/page"), &l), Ok(()));
        assert_eq!(check_shape(&u("http://a.test/a/b/a/c/a/d"), &l), Ok(()));
    }

    #[test]
    fn calendars() {
        for yes in [
            "http://a.test/agenda/2026/11/",
            "http://a.test/blog/2019/3/titre",
            "http://a.test/cal.php?month=12&year=2031",
            "http://a.test/events?date=2026-11-22",
            "http://a.test/list?from=20261122",
            "http://a.test/archives/2026-11",
            "http://a.test/x?start_date=1",
        ] {
            assert!(is_calendar_like(&u(yes)), "{yes}");
        }
        for no in [
            "http://a.test/",
            "http://a.test/doc/2026.html",
            "http://a.test/produits/1234/56",
            "http://a.test/page?id=20",
            "http://a.test/search?q=graphe",
            "http://a.test/tel?n=12345678",
        ] {
            assert!(!is_calendar_like(&u(no)), "{no}");
        }
    }

    #[test]
    fn query_key_is_the_path_of_urls_with_a_query() {
        assert_eq!(
            query_variant_key(&u("http://a.test/list?page=2")),
            Some("/list")
        );
        assert_eq!(query_variant_key(&u("http://a.test/list")), None);
    }
}
