//! Memory per waiting URL of the crawl frontier (benchmark B6 of the performance notes, the
//! in-process half): 1,000,000 URLs over 10,000 servers go through the prioritizer and into
//! per-server heaps of 16-byte entries, as the crawl keeps them (the URL text stays in
//! SQLite). Prints the resident memory added per URL, read from `/proc/self/statm`.
//!
//! `cargo run --release -p stages --example bench_frontier [URLS] [STRATEGY]`

use std::collections::{BinaryHeap, HashMap};

use stages::focus::strategy::{Prioritizer, Settings, Strategy};

/// The crawl's heap entry (pipeline/crawl.rs `Entry`): id, key, stamp — 16 bytes.
// The stamp is only compared by the crawl (stale entries); here it just takes its room.
#[allow(dead_code)]
struct Entry(i64, f32, u32);

impl PartialEq for Entry {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other).is_eq()
    }
}
impl Eq for Entry {}
impl PartialOrd for Entry {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl Ord for Entry {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        self.1.total_cmp(&other.1).then(other.0.cmp(&self.0))
    }
}

fn resident_bytes() -> u64 {
    let statm = std::fs::read_to_string("/proc/self/statm").unwrap_or_default();
    let pages: u64 = statm
        .split_whitespace()
        .nth(1)
        .and_then(|p| p.parse().ok())
        .unwrap_or(0);
    pages * 4096
}

fn main() {
    let mut args = std::env::args().skip(1);
    let n: i64 = args
        .next()
        .and_then(|a| a.parse().ok())
        .unwrap_or(1_000_000);
    let strategy = match args.next().as_deref() {
        Some("backlink-count") => Strategy::BacklinkCount,
        Some("breadth-first") => Strategy::BreadthFirst,
        _ => Strategy::BestFirst,
    };
    let hosts: Vec<String> = (0..10_000)
        .map(|h| format!("http://h{h}.test:80"))
        .collect();
    let before = resident_bytes();
    let mut prio = Prioritizer::new(Settings {
        strategy,
        pagerank_every: 100,
        margin: 0.2,
        host_yield: true,
    });
    let mut heaps: HashMap<&str, BinaryHeap<Entry>> = HashMap::new();
    for id in 0..n {
        let host = &hosts[(id % 10_000) as usize];
        // Every page links 50 new URLs: the parent is the URL 50 ids back.
        let parent = id / 50;
        let priority = ((id * 7919) % 1000) as f64 / 1000.0;
        let q = prio.queue(id, host, 3, priority, 0);
        prio.link(parent, id, priority);
        heaps
            .entry(host.as_str())
            .or_default()
            .push(Entry(id, q.key as f32, q.stamp as u32));
    }
    let after = resident_bytes();
    let waiting: usize = heaps.values().map(BinaryHeap::len).sum();
    println!(
        "{strategy:?}: {waiting} URLs waiting over {} servers: {:.1} MB resident added, {:.0} bytes per URL",
        heaps.len(),
        (after - before) as f64 / 1e6,
        (after - before) as f64 / waiting as f64
    );
}
