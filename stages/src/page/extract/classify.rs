//! jusText classification: each raw block judged on its own (length, link density, stop-word
//! density), the main region and the structure applied, then context smoothing.
//!
//! **In:** the raw blocks, what the tree says about them ([`Structure`]), the stop-word language
//! and [`ExtractOptions::keep_everything`](super::ExtractOptions::keep_everything). **Out:** the
//! final [`Block`]s with their keep/drop decision and reason.
//!
//! **Invariants:** one block out per raw block, in order; with `keep_everything` every block is
//! kept and still carries its label.

use super::block::RawBlock;
use super::language::{WordSet, in_set, on_list, stopword_set};
use super::region::{Container, main_region};
use super::{
    Block, BlockKind, BlockReason, LENGTH_HIGH, LENGTH_LOW, MAIN_REGION_LINK_DENSITY,
    MAX_HEADING_DISTANCE, MAX_LINK_DENSITY, MIN_PROMOTED_WORDS, STOPWORDS_HIGH, STOPWORDS_LOW,
    words,
};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Class {
    Good,
    NearGood,
    Short,
    Bad,
    /// A short block of link text ("Read more", a menu entry): dropped, but transparent to
    /// the context rules, so that it does not cut a page's text apart.
    Link,
}

/// What the classifier needs to know about a block (or a run of short blocks).
#[derive(Clone, Copy, Default)]
struct Stats {
    chars: usize,
    link_chars: usize,
    words: usize,
    stopwords: usize,
    boiler: bool,
    copyright: bool,
}

impl Stats {
    fn of(text: &str, link_chars: usize, boiler: bool, list: Option<&WordSet>) -> Stats {
        let mut stats = Stats {
            chars: text.chars().count(),
            link_chars,
            boiler,
            copyright: text.contains('©'),
            ..Stats::default()
        };
        let mut lower = String::new();
        for word in words(text) {
            stats.words += 1;
            if let Some(list) = list {
                stats.stopwords += usize::from(in_set(list, word, &mut lower));
            }
        }
        stats
    }

    /// The statistics of `self` and `other` read as one paragraph.
    fn join(self, other: Stats) -> Stats {
        Stats {
            chars: self.chars + 1 + other.chars,
            link_chars: self.link_chars + other.link_chars,
            words: self.words + other.words,
            stopwords: self.stopwords + other.stopwords,
            boiler: self.boiler || other.boiler,
            copyright: self.copyright || other.copyright,
        }
    }
}

/// jusText's context-free classification of one block: (class, reason if later dropped).
/// Without a stop-word list, the stop-word tests pass (jusText's language-independent mode).
fn classify_one(stats: &Stats, has_list: bool) -> (Class, BlockReason) {
    if stats.boiler {
        return (Class::Bad, BlockReason::BoilerplateElement);
    }
    if link_density(stats.link_chars, stats.chars) > MAX_LINK_DENSITY {
        let class = if stats.chars < LENGTH_LOW {
            Class::Link
        } else {
            Class::Bad
        };
        return (class, BlockReason::LinkDense);
    }
    if stats.copyright {
        return (Class::Bad, BlockReason::Copyright);
    }
    if stats.chars < LENGTH_LOW {
        return if stats.link_chars > 0 {
            (Class::Link, BlockReason::LinkDense)
        } else {
            (Class::Short, BlockReason::Short)
        };
    }
    let density = if stats.words == 0 {
        0.0
    } else {
        stats.stopwords as f32 / stats.words as f32
    };
    let (low, high) = if has_list {
        (STOPWORDS_LOW, STOPWORDS_HIGH)
    } else {
        (0.0, 0.0)
    };
    if density >= high {
        if stats.chars > LENGTH_HIGH {
            (Class::Good, BlockReason::Good)
        } else {
            (Class::NearGood, BlockReason::Short)
        }
    } else if density >= low {
        (Class::NearGood, BlockReason::FewStopwords)
    } else {
        (Class::Bad, BlockReason::FewStopwords)
    }
}

/// Words of date, time and byline lines ("Published 2:16 AM EST Nov 20, 2019", "By Jane Doe |
/// Updated Tuesday"), in the languages with stop-word lists, sorted.
pub(super) const DATELINE_WORDS: &[&str] = &[
    "am",
    "août",
    "apr",
    "april",
    "aug",
    "august",
    "avril",
    "by",
    "cest",
    "cet",
    "de",
    "dec",
    "december",
    "décembre",
    "edt",
    "est",
    "feb",
    "february",
    "friday",
    "février",
    "gmt",
    "jan",
    "january",
    "janvier",
    "jeudi",
    "juillet",
    "juin",
    "jul",
    "july",
    "jun",
    "june",
    "lundi",
    "mai",
    "mar",
    "march",
    "mardi",
    "mars",
    "may",
    "mercredi",
    "min",
    "minutes",
    "mis",
    "monday",
    "nov",
    "november",
    "novembre",
    "oct",
    "october",
    "octobre",
    "on",
    "par",
    "pm",
    "posted",
    "pst",
    "published",
    "publié",
    "read",
    "samedi",
    "saturday",
    "sep",
    "sept",
    "september",
    "septembre",
    "sunday",
    "thursday",
    "tuesday",
    "updated",
    "utc",
    "vendredi",
    "wednesday",
    "à",
];

/// Whether a short block is a date, time or byline line: most of its words are numbers or
/// [`DATELINE_WORDS`], one at least of the latter. Such lines sit inside article containers
/// but are not the article.
pub(super) fn is_dateline(text: &str) -> bool {
    if text.len() >= LENGTH_LOW {
        return false;
    }
    let (mut all, mut numbers, mut named) = (0usize, 0usize, 0usize);
    let mut lower = String::new();
    for word in words(text) {
        all += 1;
        if word.chars().all(|c| c.is_ascii_digit()) {
            numbers += 1;
        } else if on_list(DATELINE_WORDS, word, &mut lower) {
            named += 1;
        }
    }
    // A named word is required: a line of scores ("Palm Bay 18 22 13 17") is all numbers.
    named > 0 && (numbers + named) * 5 >= all * 3
}

fn link_density(link_chars: usize, chars: usize) -> f32 {
    if chars == 0 {
        0.0
    } else {
        link_chars.min(chars) as f32 / chars as f32
    }
}

/// What the tree says about each block, beyond its own text.
pub(super) struct Structure<'a> {
    /// Inside a structural boilerplate cue.
    pub(super) boiler: &'a [bool],
    /// Main-content candidates.
    pub(super) containers: &'a [Container],
    /// Inside reader comments that are to be kept (empty with `drop_comments`).
    pub(super) comments: &'a [bool],
}

/// Text weight of a block for the main-region choice.
fn region_weight(class: Class, reason: BlockReason, chars: usize) -> usize {
    match (class, reason) {
        (Class::Good | Class::NearGood, _) => chars,
        (Class::Short, _) | (Class::Bad, BlockReason::FewStopwords) => chars / 2,
        _ => 0,
    }
}

pub(super) fn classify(
    raw: Vec<RawBlock>,
    structure: &Structure<'_>,
    stop_lang: Option<&str>,
    keep_everything: bool,
) -> Vec<Block> {
    let boiler = structure.boiler;
    let list = stop_lang.and_then(stopword_set);
    let stats: Vec<Stats> = raw
        .iter()
        .enumerate()
        .map(|(i, b)| {
            let boiler = boiler.get(i).copied().unwrap_or(false);
            Stats::of(&b.text, b.link_chars, boiler, list)
        })
        .collect();
    let has_list = list.is_some();
    let (mut initial, reasons): (Vec<Class>, Vec<BlockReason>) =
        stats.iter().map(|s| classify_one(s, has_list)).unzip();
    join_runs(&mut initial, &stats, has_list);

    // Inside the main-content region, short and stop-word-poor text (score lines, one-line
    // paragraphs, list items) is part of the article; link text and boilerplate cues are not.
    let weights: Vec<usize> = initial
        .iter()
        .zip(&reasons)
        .zip(&stats)
        .map(|((c, r), s)| region_weight(*c, *r, s.chars))
        .collect();
    let region = main_region(structure.containers, &weights);
    let judged = Judged {
        reasons: &reasons,
        stats: &stats,
        boiler,
    };
    let promoted = promote_in_region(&raw, &mut initial, &judged, region);
    let anchored = anchor_near_good(&initial, &reasons);
    let headings: Vec<bool> = raw.iter().map(|b| b.kind == BlockKind::Heading).collect();
    let lengths: Vec<usize> = stats.iter().map(|s| s.chars).collect();
    let mut fin = revise(&anchored, &headings, &lengths);
    let outside = match region {
        Some(region) => keep_inside_main(&mut fin, &initial, &judged, region, structure.comments),
        None => vec![false; fin.len()],
    };
    raw.into_iter()
        .enumerate()
        .map(|(i, block)| {
            let good = fin[i] == Class::Good;
            let reason = match (good, reasons[i]) {
                _ if outside[i] => BlockReason::OutsideMain,
                (true, BlockReason::Good) => BlockReason::Good,
                (true, _) if promoted[i] => BlockReason::MainContent,
                (true, _) => BlockReason::NearGood,
                (false, reason) => reason,
            };
            Block {
                kind: block.kind,
                link_density: link_density(block.link_chars, lengths[i]),
                words: stats[i].words,
                text: block.text,
                keep: good || keep_everything,
                reason,
            }
        })
        .collect()
}

/// What each block's first reading gave: its reason, its figures, whether a boilerplate cue
/// marks it.
struct Judged<'a> {
    reasons: &'a [BlockReason],
    stats: &'a [Stats],
    boiler: &'a [bool],
}

/// A run of adjacent short or near-good blocks (a list, lines cut by <br><br>, a news story in
/// one-sentence paragraphs) is judged as one paragraph too: fragmentation alone does not make
/// text boilerplate. Link blocks and bad blocks end a run, so teaser lists (title link,
/// summary, title link…) are not joined.
fn join_runs(initial: &mut [Class], stats: &[Stats], has_list: bool) {
    let joinable = |c: Class| matches!(c, Class::Short | Class::NearGood);
    let mut i = 0;
    while i < initial.len() {
        if !joinable(initial[i]) {
            i += 1;
            continue;
        }
        let start = i;
        let mut run = stats[i];
        i += 1;
        while i < initial.len() && joinable(initial[i]) {
            run = run.join(stats[i]);
            i += 1;
        }
        if i - start < 2 {
            continue;
        }
        match classify_one(&run, has_list).0 {
            Class::Good => initial[start..i].fill(Class::Good),
            Class::NearGood => {
                for class in &mut initial[start..i] {
                    if *class == Class::Short {
                        *class = Class::NearGood;
                    }
                }
            }
            _ => {}
        }
    }
}

/// Promotes the eligible blocks of the main-content region to good; which were promoted.
fn promote_in_region(
    raw: &[RawBlock],
    initial: &mut [Class],
    judged: &Judged<'_>,
    region: Option<(usize, usize)>,
) -> Vec<bool> {
    let (reasons, stats, boiler) = (judged.reasons, judged.stats, judged.boiler);
    let mut promoted = vec![false; initial.len()];
    if let Some((start, end)) = region {
        // Text that appears twice on the page (gallery captions, "Close", repeated credits)
        // is page furniture, not article text.
        let mut seen: std::collections::HashMap<&str, usize> = std::collections::HashMap::new();
        for block in raw.get(start..end).unwrap_or_default() {
            *seen.entry(block.text.as_str()).or_default() += 1;
        }
        for i in start..end.min(initial.len()) {
            let eligible = match initial[i] {
                Class::Short | Class::NearGood => true,
                // A digest paragraph with a few links in it is text; a list of titles is not.
                Class::Bad if reasons[i] == BlockReason::LinkDense => {
                    !boiler[i]
                        && link_density(stats[i].link_chars, stats[i].chars)
                            <= MAIN_REGION_LINK_DENSITY
                }
                Class::Bad => reasons[i] == BlockReason::FewStopwords,
                _ => false,
            };
            let block = &raw[i];
            if matches!(initial[i], Class::Short | Class::NearGood) && is_dateline(&block.text) {
                // Not article text, and not to be revived by its neighbours either.
                initial[i] = Class::Bad;
                continue;
            }
            let fragment = block.kind != BlockKind::Heading && stats[i].words < MIN_PROMOTED_WORDS;
            if eligible
                && block.kind != BlockKind::Other
                && !fragment
                && seen.get(block.text.as_str()).copied().unwrap_or(0) < 2
            {
                initial[i] = Class::Good;
                promoted[i] = true;
            }
        }
    }
    promoted
}

/// A page without a single long paragraph (lists, short notes) would lose everything: jusText
/// needs a good block to anchor the context. Its stop-word-rich near-good blocks become the
/// anchors instead.
fn anchor_near_good(initial: &[Class], reasons: &[BlockReason]) -> Vec<Class> {
    let mut anchored = initial.to_vec();
    if !anchored.contains(&Class::Good) {
        for (class, reason) in anchored.iter_mut().zip(reasons) {
            if *class == Class::NearGood && *reason == BlockReason::Short {
                *class = Class::Good;
            }
        }
    }
    anchored
}

/// Good blocks outside the main-content region (and its lead paragraphs) become bad, reader
/// comments kept; which were.
fn keep_inside_main(
    fin: &mut [Class],
    initial: &[Class],
    judged: &Judged<'_>,
    (region_start, end): (usize, usize),
    comments: &[bool],
) -> Vec<bool> {
    let (reasons, boiler) = (judged.reasons, judged.boiler);
    let lengths: Vec<usize> = judged.stats.iter().map(|s| s.chars).collect();
    let mut outside = vec![false; fin.len()];
    {
        // A lead paragraph often sits just above the article body's container: long good
        // paragraphs before the region, up to the first bad text or a gap of other text, are
        // part of it.
        let mut start = region_start.min(fin.len());
        let mut gap = 0;
        for i in (0..start).rev() {
            if fin[i] == Class::Good && reasons[i] == BlockReason::Good {
                start = i;
                gap = 0;
            } else if initial[i] == Class::Bad && !boiler[i] {
                break;
            } else {
                gap += lengths[i];
                if gap > MAX_HEADING_DISTANCE {
                    break;
                }
            }
        }
        for (i, class) in fin.iter_mut().enumerate() {
            let kept_comment = comments.get(i).copied().unwrap_or(false);
            if (i < start || i >= end) && *class == Class::Good && !kept_comment {
                *class = Class::Bad;
                outside[i] = true;
            }
        }
    }
    outside
}

/// jusText's context-sensitive revision; every block ends Good or Bad. Linear time: the
/// neighbour look-ups are precomputed instead of rescanned for every block.
fn revise(initial: &[Class], heading: &[bool], lengths: &[usize]) -> Vec<Class> {
    let n = initial.len();
    let mut class = initial.to_vec();

    // Short headings shortly before a good block become near-good.
    for i in 0..n {
        if heading[i] && class[i] == Class::Short && good_follows(&class, lengths, i) {
            class[i] = Class::NearGood;
        }
    }

    // Short blocks take their class from the nearest good/bad neighbours (the page edges
    // count as bad); between a good and a bad one, a near-good block on the bad side tips
    // the balance.
    let (prev_gb, prev_any) = neighbours(&class, (0..n).collect::<Vec<_>>());
    let (next_gb, next_any) = neighbours(&class, (0..n).rev().collect::<Vec<_>>());
    let mut revised = class.clone();
    for i in 0..n {
        if class[i] != Class::Short {
            continue;
        }
        revised[i] = match (prev_gb[i], next_gb[i]) {
            (Class::Good, Class::Good) => Class::Good,
            (Class::Bad, Class::Bad) => Class::Bad,
            (prev, next) => {
                if (prev == Class::Bad && prev_any[i] == Class::NearGood)
                    || (next == Class::Bad && next_any[i] == Class::NearGood)
                {
                    Class::Good
                } else {
                    Class::Bad
                }
            }
        };
    }
    class = revised;

    // Near-good blocks are kept unless both good/bad neighbours are bad. Revised blocks
    // count as neighbours for the following ones, as in jusText's in-place loop.
    let original = class.clone();
    let mut next_gb = vec![Class::Bad; n];
    let mut next = Class::Bad;
    for i in (0..n).rev() {
        next_gb[i] = next;
        if matches!(original[i], Class::Good | Class::Bad) {
            next = original[i];
        }
    }
    let mut prev = Class::Bad;
    for i in 0..n {
        if class[i] == Class::NearGood {
            class[i] = if prev == Class::Bad && next_gb[i] == Class::Bad {
                Class::Bad
            } else {
                Class::Good
            };
        }
        if matches!(class[i], Class::Good | Class::Bad) {
            prev = class[i];
        }
    }
    for c in &mut class {
        if *c == Class::Link {
            *c = Class::Bad;
        }
    }

    // Headings dropped only by context are kept when a good block follows closely.
    for i in 0..n {
        if heading[i]
            && class[i] == Class::Bad
            && !matches!(initial[i], Class::Bad | Class::Link)
            && good_follows(&class, lengths, i)
        {
            class[i] = Class::Good;
        }
    }
    class
}

/// Whether a good block starts within [`MAX_HEADING_DISTANCE`] characters after block `i`.
fn good_follows(class: &[Class], lengths: &[usize], i: usize) -> bool {
    let mut distance = 0;
    for j in i + 1..class.len() {
        if distance > MAX_HEADING_DISTANCE {
            return false;
        }
        if class[j] == Class::Good {
            return true;
        }
        distance += lengths[j];
    }
    false
}

/// For each block, in the order given, the class of the nearest earlier block that is good or
/// bad, and of the nearest earlier one that is good, bad or near-good (short blocks are
/// skipped; the edge counts as bad).
fn neighbours(class: &[Class], order: Vec<usize>) -> (Vec<Class>, Vec<Class>) {
    let n = class.len();
    let mut good_bad = vec![Class::Bad; n];
    let mut any = vec![Class::Bad; n];
    let (mut last_gb, mut last_any) = (Class::Bad, Class::Bad);
    for i in order {
        good_bad[i] = last_gb;
        any[i] = last_any;
        match class[i] {
            Class::Good | Class::Bad => {
                last_gb = class[i];
                last_any = class[i];
            }
            Class::NearGood => last_any = Class::NearGood,
            Class::Short | Class::Link => {}
        }
    }
    (good_bad, any)
}
