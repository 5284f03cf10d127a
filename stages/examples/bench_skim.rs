//! Benchmark of the crawl's page skim (not a user tool): how fast HTML tokenizers read the
//! fixture pages, and how fast [`stages::page::skim::skim_html`] reads them.
//!
//! **In:** `[--rounds N] [--only READER] [DIR]`: `DIR` is `tests/data/extraction` (the default, in
//! the repository); its 355 pages are read and decoded with
//! [`stages::page::decode::decode`] as `stages/tests/skim.rs` does, before any clock starts;
//! `--only` runs one reader (for a profiler).
//! **Out:** one line per reader: median and best CPU time (process CPU, user + sys) of one pass
//! over all pages, and MB/s of decoded HTML at the median:
//! - `html5ever-noop`: html5ever's tokenizer with a sink that only switches to the raw-text
//!   states (what the skim used before html5gum);
//! - `html5gum-noop`: html5gum's tokenizer with an emitter that keeps only the tag names it
//!   needs to switch to the same states;
//! - `skim_html`: the crawl's whole skim (pre-scan, tokenizer, text, links, language);
//! - `skim_html-no-js`: the same without JavaScript links (`[discovery] javascript = false`).
//!
//! **Invariants:** one thread; readers alternate within each round, so a busy machine slows
//! them alike.
//!
//! `cargo run --release -p stages --example bench_skim -- --rounds 5`

use std::cell::Cell;
use std::convert::Infallible;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::Duration;

use html5ever::local_name;
use html5ever::tendril::StrTendril;
use html5ever::tokenizer::states::RawKind;
use html5ever::tokenizer::{BufferQueue, TagKind, Token, TokenSink, TokenSinkResult, Tokenizer};
use rustix::time::{ClockId, clock_gettime};

/// CPU time used by the whole process so far (user + sys).
fn process_cpu() -> Duration {
    let t = clock_gettime(ClockId::ProcessCPUTime);
    Duration::new(
        u64::try_from(t.tv_sec).unwrap_or(0),
        u32::try_from(t.tv_nsec).unwrap_or(0),
    )
}

/// The `tests/data/extraction` folder, as the fixture tests find it.
fn default_dir() -> Option<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/data/extraction");
    dir.is_dir().then_some(dir)
}

/// The decoded pages of the three fixture sets, in the fixture test's order.
fn load(root: &Path) -> Result<Vec<String>, Box<dyn std::error::Error>> {
    let mut pages = Vec::new();
    for (dir, suffix) in [
        ("cleaneval-dev/input", ".html"),
        ("readability/input", ".html"),
        ("article-extraction-benchmark/html", ".html.gz"),
    ] {
        let dir = root.join(dir);
        let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(|e| format!("{}: {e}", dir.display()))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|p| {
                let name = p.to_string_lossy();
                name.ends_with(suffix) || name.ends_with(&format!("{suffix}.gz"))
            })
            .collect();
        files.sort();
        for path in files {
            let raw = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
            let bytes = if path.extension().is_some_and(|e| e == "gz") {
                let mut out = Vec::new();
                flate2::read::GzDecoder::new(raw.as_slice())
                    .read_to_end(&mut out)
                    .map_err(|e| format!("{}: {e}", path.display()))?;
                out
            } else {
                raw
            };
            pages.push(stages::page::decode::decode(&bytes, None, None).text);
        }
    }
    Ok(pages)
}

/// html5ever sink that does nothing but switch to the raw-text states.
struct NoopSink(Cell<usize>);

impl TokenSink for NoopSink {
    type Handle = ();

    fn process_token(&self, token: Token, _line: u64) -> TokenSinkResult<()> {
        self.0.set(self.0.get() + 1);
        if let Token::TagToken(tag) = token
            && tag.kind == TagKind::StartTag
            && !tag.self_closing
        {
            return match tag.name {
                local_name!("script") => TokenSinkResult::RawData(RawKind::ScriptData),
                local_name!("style")
                | local_name!("xmp")
                | local_name!("iframe")
                | local_name!("noembed")
                | local_name!("noframes") => TokenSinkResult::RawData(RawKind::Rawtext),
                local_name!("title") | local_name!("textarea") => {
                    TokenSinkResult::RawData(RawKind::Rcdata)
                }
                local_name!("plaintext") => TokenSinkResult::Plaintext,
                _ => TokenSinkResult::Continue,
            };
        }
        TokenSinkResult::Continue
    }
}

fn html5ever_noop(html: &str) -> usize {
    let tokenizer = Tokenizer::new(NoopSink(Cell::new(0)), Default::default());
    let input = BufferQueue::default();
    input.push_back(StrTendril::from_slice(html));
    let _ = tokenizer.feed(&input);
    tokenizer.end();
    tokenizer.sink.0.get()
}

/// html5gum emitter that keeps the tag names (to switch to the raw-text states and recognise
/// their end tags) and counts events, nothing else.
struct NoopEmitter<'a> {
    name: Vec<u8>,
    last_start: Vec<u8>,
    is_end: bool,
    events: &'a Cell<usize>,
}

impl html5gum::Emitter for NoopEmitter<'_> {
    type Token = Infallible;

    fn set_last_start_tag(&mut self, last_start_tag: Option<&[u8]>) {
        self.last_start.clear();
        self.last_start.extend(last_start_tag.unwrap_or_default());
    }
    fn emit_eof(&mut self) {}
    fn emit_error(&mut self, _error: html5gum::Error) {}
    fn should_emit_errors(&mut self) -> bool {
        false
    }
    fn pop_token(&mut self) -> Option<Infallible> {
        None
    }
    fn emit_string(&mut self, _c: &[u8]) {
        self.events.set(self.events.get() + 1);
    }
    fn init_start_tag(&mut self) {
        self.name.clear();
        self.is_end = false;
    }
    fn init_end_tag(&mut self) {
        self.name.clear();
        self.is_end = true;
    }
    fn init_comment(&mut self) {}
    fn emit_current_tag(&mut self) -> Option<html5gum::State> {
        self.events.set(self.events.get() + 1);
        if self.is_end {
            self.last_start.clear();
            None
        } else {
            std::mem::swap(&mut self.last_start, &mut self.name);
            html5gum::naive_next_state(&self.last_start)
        }
    }
    fn emit_current_comment(&mut self) {}
    fn emit_current_doctype(&mut self) {}
    fn set_self_closing(&mut self) {}
    fn set_force_quirks(&mut self) {}
    fn push_tag_name(&mut self, s: &[u8]) {
        self.name.extend_from_slice(s);
    }
    fn push_comment(&mut self, _s: &[u8]) {}
    fn push_doctype_name(&mut self, _s: &[u8]) {}
    fn init_doctype(&mut self) {}
    fn init_attribute(&mut self) {}
    fn push_attribute_name(&mut self, _s: &[u8]) {}
    fn push_attribute_value(&mut self, _s: &[u8]) {}
    fn set_doctype_public_identifier(&mut self, _value: &[u8]) {}
    fn set_doctype_system_identifier(&mut self, _value: &[u8]) {}
    fn push_doctype_public_identifier(&mut self, _s: &[u8]) {}
    fn push_doctype_system_identifier(&mut self, _s: &[u8]) {}
    fn current_is_appropriate_end_tag_token(&mut self) -> bool {
        self.is_end && !self.last_start.is_empty() && self.last_start == self.name
    }
}

fn html5gum_noop(html: &str) -> usize {
    let events = Cell::new(0);
    let emitter = NoopEmitter {
        name: Vec::new(),
        last_start: Vec::new(),
        is_end: false,
        events: &events,
    };
    // The string reader cannot fail.
    let _ = html5gum::Tokenizer::new_with_emitter(html, emitter).finish();
    events.get()
}

fn skim(html: &str, url: &url::Url, javascript_links: bool) -> usize {
    let options = stages::page::skim::SkimOptions {
        javascript_links,
        ..stages::page::skim::SkimOptions::default()
    };
    let s = stages::page::skim::skim_html_opts(html, url, &options);
    s.links.len() + s.text.len()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut rounds = 5usize;
    let mut dir = None;
    let mut only: Option<String> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--rounds" => {
                rounds = args
                    .next()
                    .and_then(|n| n.parse().ok())
                    .filter(|&n| n > 0)
                    .ok_or("--rounds needs a positive number")?;
            }
            "--only" => only = Some(args.next().ok_or("--only needs a reader name")?),
            _ => dir = Some(PathBuf::from(arg)),
        }
    }
    let dir = dir
        .or_else(default_dir)
        .ok_or("tests/data/extraction not found: give its path")?;
    let pages = load(&dir)?;
    let bytes: usize = pages.iter().map(String::len).sum();
    let url = url::Url::parse("https://example.org/dir/page.html")?;
    println!(
        "{} pages, {:.1} MB decoded, {rounds} rounds",
        pages.len(),
        bytes as f64 / 1e6
    );

    type Reader<'a> = (&'a str, Box<dyn Fn(&str) -> usize + 'a>);
    let mut readers: Vec<Reader> = vec![
        ("html5ever-noop", Box::new(html5ever_noop)),
        ("html5gum-noop", Box::new(html5gum_noop)),
        ("skim_html", Box::new(|html: &str| skim(html, &url, true))),
        (
            "skim_html-no-js",
            Box::new(|html: &str| skim(html, &url, false)),
        ),
    ];
    if let Some(only) = &only {
        readers.retain(|(name, _)| name == only);
        if readers.is_empty() {
            return Err(format!("no reader named {only}").into());
        }
    }
    let mut times: Vec<Vec<f64>> = vec![Vec::new(); readers.len()];
    let mut sink = 0usize;
    for _ in 0..rounds {
        for (i, (_, read)) in readers.iter().enumerate() {
            let start = process_cpu();
            for html in &pages {
                sink = sink.wrapping_add(read(html));
            }
            times[i].push((process_cpu() - start).as_secs_f64());
        }
    }
    for ((name, _), mut t) in readers.iter().zip(times) {
        t.sort_by(f64::total_cmp);
        let median = t[t.len() / 2];
        let best = t[0];
        println!(
            "{name:>15}: median {:7.1} ms, best {:7.1} ms, {:6.1} MB/s",
            median * 1e3,
            best * 1e3,
            bytes as f64 / 1e6 / median
        );
    }
    // Keeps the work observable so that the optimiser cannot drop it.
    std::hint::black_box(sink);
    Ok(())
}
