//! Tests of the crawl strategies: each priority function's keys, re-keying after events, the
//! tunnelling limit, the host hold-back rule, and determinism.

use super::*;

fn p(strategy: Strategy) -> Prioritizer {
    Prioritizer::new(Settings {
        strategy,
        pagerank_every: 2,
        margin: 0.2,
        host_yield: true,
    })
}

fn push(pr: &mut Prioritizer, id: i64, host: &str, depth: u32, priority: f64) -> Queued {
    pr.queue(id, host, depth, priority, 0)
}

#[test]
fn names_round_trip_through_the_topic_syntax() {
    for s in Strategy::ALL {
        #[derive(serde::Deserialize)]
        struct T {
            s: Strategy,
        }
        let json = format!("{{\"s\": \"{}\"}}", s.name());
        let t: T = serde_json::from_str(&json).unwrap();
        assert_eq!(t.s, s);
    }
}

#[test]
fn best_first_key_is_the_link_priority_raised_by_better_parents() {
    let mut pr = p(Strategy::BestFirst);
    let q = push(&mut pr, 10, "a", 1, 0.3);
    assert_eq!(
        q.key,
        f64::from(0.3f32),
        "keys are kept in single precision"
    );
    pr.link(1, 10, 0.2);
    assert!(pr.page_done(1).is_empty(), "a worse parent changes nothing");
    pr.link(2, 10, 0.8);
    let re = pr.page_done(2);
    assert_eq!(re.len(), 1);
    assert_eq!(re[0].key, f64::from(0.8f32));
    assert!(!pr.is_live(10, q.stamp), "the old entry is stale");
    assert!(pr.is_live(10, re[0].stamp));
}

#[test]
fn breadth_first_key_is_minus_the_depth() {
    let mut pr = p(Strategy::BreadthFirst);
    assert!(push(&mut pr, 1, "a", 1, 0.9).key > push(&mut pr, 2, "a", 2, 1.0).key);
}

#[test]
fn backlink_count_counts_distinct_parents() {
    let mut pr = p(Strategy::BacklinkCount);
    push(&mut pr, 10, "a", 1, 0.0);
    pr.link(1, 10, 0.0);
    pr.link(1, 10, 0.0);
    pr.link(2, 10, 0.0);
    let re = pr.page_done(2);
    assert_eq!(re.len(), 1);
    assert_eq!(re[0].key, 2.0);
}

#[test]
fn forward_link_count_prefers_links_from_hubs() {
    let mut pr = p(Strategy::ForwardLinkCount);
    push(&mut pr, 10, "a", 1, 0.0);
    push(&mut pr, 11, "a", 1, 0.0);
    push(&mut pr, 12, "a", 1, 0.0);
    pr.link(1, 10, 0.0);
    pr.page_done(1);
    for t in [11, 12, 13] {
        pr.link(2, t, 0.0);
    }
    let re = pr.page_done(2);
    let keys: Vec<(i64, f64)> = re.iter().map(|q| (q.id, q.key)).collect();
    assert_eq!(keys, [(11, 3.0), (12, 3.0)]);
    assert_eq!(pr.key(10, 1, 0.0), 1.0);
}

#[test]
fn opic_distributes_cash_in_equal_shares() {
    let mut pr = p(Strategy::Opic);
    pr.seed(1);
    push(&mut pr, 10, "a", 1, 0.0);
    push(&mut pr, 11, "a", 1, 0.0);
    pr.link(1, 10, 0.0);
    pr.link(1, 11, 0.0);
    let re = pr.page_done(1);
    assert_eq!(re.len(), 2);
    assert!(re.iter().all(|q| (q.key - 0.5).abs() < 1e-6));
    // 10 is fetched and passes its cash on to 11, which now has the most.
    pr.taken(10);
    pr.link(10, 11, 0.0);
    let re = pr.page_done(10);
    assert_eq!(re.len(), 1);
    assert!((re[0].key - 1.0).abs() < 1e-6);
    // Page 1 has spent its cash.
    assert_eq!(pr.key(1, 0, 0.0), 0.0);
}

#[test]
fn pagerank_is_recomputed_periodically_over_the_known_graph() {
    let mut pr = p(Strategy::PageRank);
    push(&mut pr, 10, "a", 1, 0.0);
    push(&mut pr, 11, "a", 1, 0.0);
    pr.link(1, 10, 0.0);
    pr.link(1, 11, 0.0);
    assert!(pr.page_done(1).is_empty(), "not yet: every 2 pages");
    pr.link(2, 10, 0.0);
    let re = pr.page_done(2);
    assert_eq!(re.len(), 2);
    let k10 = re.iter().find(|q| q.id == 10).unwrap().key;
    let k11 = re.iter().find(|q| q.id == 11).unwrap().key;
    assert!(k10 > k11, "{k10} > {k11}");
}

#[test]
fn larger_site_first_ranks_hosts_by_waiting_urls() {
    let mut pr = p(Strategy::LargerSiteFirst);
    push(&mut pr, 1, "small", 1, 0.0);
    push(&mut pr, 2, "big", 3, 0.0);
    push(&mut pr, 3, "big", 2, 0.0);
    assert_eq!(pr.host_rank("big", -2.0), 2.0);
    assert_eq!(pr.host_rank("small", -1.0), 1.0);
    pr.taken(2);
    pr.taken(3);
    assert_eq!(pr.host_rank("big", 0.0), 0.0);
    assert_eq!(pr.pending_len(), 1);
}

#[test]
fn hold_back_applies_from_the_first_request_of_a_best_first_crawl() {
    let mut pr = p(Strategy::BestFirst);
    for id in 0..10 {
        push(&mut pr, id, "a", 1, 0.5);
    }
    // Servers never fetched: the same yield, so the level is in key units.
    let level = pr.hold_back_level([("a", 0.8), ("b", 0.3)]).unwrap();
    assert!(pr.hold_back("b", 0.3, level, 5));
    assert!(!pr.hold_back("b", 0.7, level, 5), "within the margin");
    // Exactly the margin below (an anchor naming the topic, the only difference between two
    // links of one hub): held back, whatever the rounding of the sums.
    // Keys go through the frontier in single precision, as the crawl passes them.
    // Two links of one hub: 0.3 from the parent (score 0.5), 0.2 from their anchors' and URLs'
    // likeness to the seeds, 0.05 for depth 1: 0.55; and 0.75 for the one whose anchor names
    // the topic (0.2 more). In single precision the gap is 0.2 − 1.2e-8.
    let best = f64::from((0.3_f64 + 0.2 + 0.05 + 0.2) as f32);
    let other = f64::from((0.3_f64 + 0.2 + 0.05) as f32);
    assert!(best - other < 0.2);
    let hub = pr.hold_back_level([("a", best), ("b", 0.1)]).unwrap();
    assert!(pr.hold_back("b", other, hub, 5));
    assert!(
        !pr.hold_back("a", best, hub, 5),
        "the best is never held back"
    );
    let tie = pr.hold_back_level([("a", 0.5), ("b", 0.5)]).unwrap();
    let no_margin = Prioritizer::new(Settings {
        margin: 0.0,
        ..pr.settings
    });
    assert!(
        !no_margin.hold_back("b", 0.5, tie, 5),
        "a tie is not held back"
    );
    assert!(
        pr.hold_back("b", 0.3, level, 50),
        "a budget larger than the frontier: the frontier grows"
    );
    assert!(!pr.may_hold_back(0), "no budget left, nothing to hold");
    assert!(!pr.hold_back("b", 0.3, level, 0));
    assert_eq!(pr.hold_back_level([]), None);
    let mut bfs = p(Strategy::BreadthFirst);
    push(&mut bfs, 1, "a", 1, 0.0);
    let level = bfs.hold_back_level([("a", 0.0)]).unwrap();
    assert!(!bfs.hold_back("a", -5.0, level, 10));
}

#[test]
fn equal_yields_hold_back_as_the_bare_keys_do() {
    // Early in a crawl every server's yield is about ½. Were values compared unscaled,
    // 0.45 × ½ would be within 0.2 of 0.7 × ½; in link-priority units it is not.
    let mut pr = p(Strategy::BestFirst);
    pr.page_judged("on", true, None);
    pr.page_judged("near", true, None);
    let level = pr.hold_back_level([("on", 0.7), ("near", 0.45)]).unwrap();
    assert!((level.top_factor - 2.0 / 3.0).abs() < 1e-12);
    assert!(pr.hold_back("near", 0.45, level, 100));
    assert!(!pr.hold_back("near", 0.55, level, 100));
    let off = Prioritizer::new(Settings {
        host_yield: false,
        ..pr.settings
    });
    let level_off = off.hold_back_level([("on", 0.7), ("near", 0.45)]).unwrap();
    for key in [0.3, 0.45, 0.49, 0.51, 0.55, 0.7] {
        assert_eq!(
            pr.hold_back("near", key, level, 100),
            off.hold_back("near", key, level_off, 100),
            "{key}"
        );
    }
}

#[test]
fn a_server_yield_is_its_on_topic_share_with_a_uniform_prior() {
    let mut pr = p(Strategy::BestFirst);
    assert_eq!(pr.host_yield("a"), 0.5, "never fetched: ½");
    pr.page_judged("a", true, None);
    assert!((pr.host_yield("a") - 2.0 / 3.0).abs() < 1e-12);
    pr.page_judged("b", false, None);
    assert!((pr.host_yield("b") - 1.0 / 3.0).abs() < 1e-12);
    for _ in 0..98 {
        pr.page_judged("b", false, None);
    }
    pr.page_judged("b", true, None);
    // 1 on topic out of 100: (1 + 1) / (100 + 2).
    assert!((pr.host_yield("b") - 2.0 / 102.0).abs() < 1e-12);
    assert_eq!(pr.host_yield("unknown"), 0.5);
}

#[test]
fn a_short_page_that_fails_the_formula_is_weak_evidence() {
    assert_eq!(verdict_weight(true, Some(3)), 1.0, "a pass is a pass");
    assert_eq!(verdict_weight(true, None), 1.0);
    assert_eq!(
        verdict_weight(false, None),
        1.0,
        "unknown length: a full page"
    );
    assert_eq!(
        verdict_weight(false, Some(0)),
        0.0,
        "an empty page says nothing"
    );
    let ten = verdict_weight(false, Some(10));
    assert!((ten - (1.0 - 0.98f64.powi(10))).abs() < 1e-12, "{ten}");
    assert!(verdict_weight(false, Some(60)) > 0.7);
    assert!(verdict_weight(false, Some(300)) > 0.99);
    assert!(verdict_weight(false, Some(u64::MAX)) <= 1.0);
    // Monotone in the length.
    let mut last = 0.0;
    for n in 0..500 {
        let w = verdict_weight(false, Some(n));
        assert!(w >= last && (0.0..=1.0).contains(&w), "{n}: {w}");
        last = w;
    }
}

#[test]
fn a_server_yield_does_not_depend_on_the_order_of_its_pages() {
    // A resumed crawl adds the pages up in id order, the crawl in fetch order.
    let pages: Vec<(bool, u64)> = (0..200u64).map(|i| (i % 3 == 0, (i * 37) % 71)).collect();
    let mut forward = p(Strategy::BestFirst);
    for &(on, n) in &pages {
        forward.page_judged("a", on, Some(n));
    }
    let mut backward = p(Strategy::BestFirst);
    for &(on, n) in pages.iter().rev() {
        backward.page_judged("a", on, Some(n));
    }
    assert_eq!(
        forward.host_yield("a").to_bits(),
        backward.host_yield("a").to_bits()
    );
}

#[test]
fn a_manual_of_short_pages_keeps_its_yield_against_one_lucky_page() {
    // A manual: 14 long pages that pass, 30 footnotes of a dozen words that do not. Another
    // server: one long page that names a topic word, and one long page that does not.
    let mut pr = p(Strategy::BestFirst);
    for _ in 0..14 {
        pr.page_judged("manual", true, Some(1500));
    }
    for _ in 0..30 {
        pr.page_judged("manual", false, Some(12));
    }
    pr.page_judged("other", true, Some(3000));
    pr.page_judged("other", false, Some(2500));
    let manual = pr.host_yield("manual");
    let other = pr.host_yield("other");
    assert!(manual > other, "{manual} > {other}");
    // Counted as full pages, the footnotes would have sunk the manual below it: (14 + 1) / 46.
    let mut flat = p(Strategy::BestFirst);
    for _ in 0..14 {
        flat.page_judged("manual", true, None);
    }
    for _ in 0..30 {
        flat.page_judged("manual", false, None);
    }
    flat.page_judged("other", true, None);
    flat.page_judged("other", false, None);
    assert!(flat.host_yield("manual") < flat.host_yield("other"));
    // A long page that fails counts fully either way.
    let mut long = p(Strategy::BestFirst);
    long.page_judged("b", false, Some(5000));
    assert!((long.host_yield("b") - 1.0 / 3.0).abs() < 1e-6);
}

#[test]
fn best_first_servers_compete_with_priority_times_yield() {
    let mut pr = p(Strategy::BestFirst);
    // A server whose pages failed the formula, with links that read well (0.6), against
    // one whose pages passed it, with plainer links (0.5).
    for _ in 0..3 {
        pr.page_judged("lure", false, None);
        pr.page_judged("on", true, None);
    }
    pr.page_judged("lure", true, None);
    let lure = pr.host_rank("lure", 0.6);
    let on = pr.host_rank("on", 0.5);
    assert!(on > lure, "{on} > {lure}");
    assert!((lure - 0.6 * 2.0 / 6.0).abs() < 1e-12);
    // The hold-back rule compares the same values, in the units of the best-yield server
    // ("on", 0.8): 0.6 × ⅓ / 0.8 = 0.25 is more than 0.2 below 0.5.
    let level = pr.hold_back_level([("on", 0.5), ("lure", 0.6)]).unwrap();
    assert_eq!(level.best, on);
    assert!((level.top_factor - 0.8).abs() < 1e-12);
    assert!(pr.hold_back("lure", 0.6, level, 100));
    assert!(
        !pr.hold_back("on", 0.5, level, 100),
        "the best is never held"
    );

    // Turned off, or another strategy: the key itself.
    let mut off = Prioritizer::new(Settings {
        host_yield: false,
        ..pr.settings
    });
    off.page_judged("lure", false, None);
    assert_eq!(off.host_rank("lure", 0.6), 0.6);
    let level = off.hold_back_level([("on", 0.5), ("lure", 0.6)]).unwrap();
    assert!(
        !off.hold_back("lure", 0.6, level, 100),
        "the bare keys would not hold it"
    );
    let mut bfs = p(Strategy::BreadthFirst);
    bfs.page_judged("lure", false, None);
    assert_eq!(bfs.host_value("lure", -2.0), -2.0);
    assert_eq!(bfs.host_rank("lure", -2.0), -2.0);
}

#[test]
fn tunnelling_counts_off_topic_pages_in_a_row() {
    assert_eq!(hops_after(2, true), 0);
    assert_eq!(hops_after(2, false), 3);
    assert_eq!(hops_after(u32::MAX, false), u32::MAX);
    assert!(may_expand(3, Some(3)));
    assert!(!may_expand(4, Some(3)));
    assert!(may_expand(1000, None));
}

#[test]
fn keys_are_deterministic_for_the_same_events() {
    let run = || {
        let mut pr = p(Strategy::Opic);
        pr.seed(1);
        let mut keys = Vec::new();
        for id in 10..20 {
            push(&mut pr, id, "a", 1, 0.0);
            pr.link(1, id, 0.0);
        }
        keys.extend(pr.page_done(1).into_iter().map(|q| (q.id, q.key.to_bits())));
        keys
    };
    assert_eq!(run(), run());
}

#[test]
fn slots_are_kept_by_id_and_chunks_freed_when_empty() {
    let mut slots = Slots::default();
    let slot = |stamp| Slot {
        stamp,
        ..Slot::EMPTY
    };
    let far = (CHUNK as i64) * 3 + 5;
    for id in [1, 2, far, -7, i64::MAX] {
        assert!(slots.insert(id, slot(9)).is_none());
    }
    assert_eq!(slots.len(), 5);
    assert_eq!(slots.insert(2, slot(10)).map(|s| s.stamp), Some(9));
    assert_eq!(slots.len(), 5);
    assert_eq!(slots.get(2).map(|s| s.stamp), Some(10));
    assert!(slots.get(3).is_none() && slots.get(far + 1).is_none());
    assert!(
        slots.get(CHUNK as i64 * 100).is_none(),
        "past the last chunk"
    );
    let mut ids: Vec<i64> = slots.ids().collect();
    ids.sort_unstable();
    assert_eq!(ids, [-7, 1, 2, far, i64::MAX]);
    assert_eq!(slots.remove(far).map(|s| s.stamp), Some(9));
    assert!(slots.remove(far).is_none());
    assert!(
        slots.chunks[3].is_none(),
        "its last slot left: the chunk is freed"
    );
    assert!(slots.remove(-7).is_some() && slots.remove(i64::MAX).is_some());
    slots.remove(1);
    slots.remove(2);
    assert_eq!(slots.len(), 0);
    assert!(slots.chunks.iter().all(Option::is_none));
}

#[test]
fn stamps_are_never_zero_and_name_the_host() {
    let mut pr = p(Strategy::BestFirst);
    pr.next_stamp = u64::from(u32::MAX) - 1;
    let a = pr.queue(1, "http://a.test:80", 1, 0.5, 0);
    let b = pr.queue(1, "http://b.test:80", 1, 0.5, 0);
    assert_eq!((a.stamp, b.stamp), (u64::from(u32::MAX), 1), "0 is skipped");
    assert!(pr.is_live(1, b.stamp) && !pr.is_live(1, a.stamp));
    assert_eq!(pr.host_name(b.host), "http://b.test:80");
    assert_eq!(pr.host_name(99), "");
    assert_eq!(pr.host_pending("http://a.test:80"), 0);
    assert_eq!(pr.host_pending("http://b.test:80"), 1);
}

#[test]
fn a_waiting_url_costs_one_small_slot() {
    assert_eq!(std::mem::size_of::<Slot>(), 20);
    // Strategies that do not rank by links keep no graph.
    let mut pr = p(Strategy::BestFirst);
    pr.queue(1, "http://a.test:80", 1, 0.5, 0);
    pr.link(1, 2, 0.9);
    assert!(pr.ids.is_empty() && pr.edges.is_empty());
    let mut pr = p(Strategy::BacklinkCount);
    pr.queue(2, "http://a.test:80", 1, 0.5, 0);
    pr.link(1, 2, 0.9);
    assert_eq!(pr.edges.len(), 1);
}
