//! The index built in chunks (ids, postings, regions) is the index built whole.

use super::*;

#[test]
fn chunked_build_gives_the_in_memory_index() {
    use crate::explore::build::{IndexBuilder, PostingsFill, posting_offsets};
    let mut rng = Rng(77);
    let g = generate(&mut rng, 300);
    let whole = index_of(&g);
    // The cache of seen lines full from the start, after a few lines, or never: lines past
    // it are split again and must get the same ids. The values taken in runs of 3 or 50, or
    // never: a value seen again in a later run gets a new id, which must end as the same id.
    let cases = [
        (1usize, 0, usize::MAX),
        (7, 5, 3),
        (1000, usize::MAX, 50),
        (usize::MAX, 40, usize::MAX),
        (1, usize::MAX, 1),
    ];
    for (every, seen_max, values_max) in cases {
        let mut builder = IndexBuilder::new(&["word", "pos", "lemma"]).unwrap();
        builder.seen_max = seen_max;
        let mut raw: Vec<Vec<u32>> = vec![Vec::new(); 4];
        let mut runs: Vec<Vec<(u32, crate::explore::build::Values)>> =
            (0..4).map(|_| Vec::new()).collect();
        let mut chunks = Vec::new();
        for line in g.vrt.lines() {
            builder.line(line).unwrap();
            for (a, base, values) in builder.take_values(values_max) {
                runs[a].push((base, values));
            }
            if builder.pending_ids() >= every {
                for (a, ids) in builder.take_ids().into_iter().enumerate() {
                    raw[a].extend(ids);
                }
                chunks.extend(builder.take_regions());
            }
        }
        let lexicons = builder.finish_lexicons().unwrap();
        assert_eq!(join_regions(chunks, &lexicons.regions), whole.regions);
        assert_eq!(lexicons.n_tokens, whole.n_tokens);
        for (a, ids) in lexicons.pending.into_iter().enumerate() {
            raw[a].extend(ids);
        }
        for (a, (name, base, values)) in lexicons.attributes.into_iter().enumerate() {
            let attr = &whole.attributes[a];
            if !runs[a].is_empty() {
                runs[a].push((base, values));
                let rank = merged_rank(std::mem::take(&mut runs[a]), attr);
                let ids: Vec<u32> = raw[a].iter().map(|&id| rank[id as usize]).collect();
                assert_eq!(ids, whole.columns.ids[a], "{name}, runs of {values_max}");
                continue;
            }
            assert_eq!(base, 0);
            assert_eq!(values.len(), attr.lexicon.len());
            let sorted = values.sort();
            let lexicon = sorted.to_lexicon();
            assert!(
                sorted
                    .iter()
                    .eq((0..attr.lexicon.len()).map(|i| attr.lexicon.get(i as u32)))
            );
            let rank = sorted.into_rank();
            assert_eq!(&name, &attr.name);
            assert_eq!(lexicon.text, attr.lexicon.text);
            assert_eq!(lexicon.offsets, attr.lexicon.offsets);
            let ids: Vec<u32> = raw[a].iter().map(|&id| rank[id as usize]).collect();
            assert_eq!(ids, whole.columns.ids[a], "{name}");
            let offsets = posting_offsets(rank.len(), ids.chunks(5));
            assert_eq!(offsets, attr.postings, "{name}");
            // Three ranges of ids, each filled from the ids in chunks of 11 positions.
            let mut postings = Vec::new();
            let cuts = [0, rank.len() / 3, rank.len() / 2, rank.len()];
            for w in cuts.windows(2) {
                let mut fill = PostingsFill::new(&offsets, w[0]..w[1]);
                for (k, chunk) in ids.chunks(11).enumerate() {
                    fill.chunk((k * 11) as u64, chunk);
                }
                postings.extend(fill.finish());
            }
            assert_eq!(postings, whole.columns.postings[a], "{name}");
        }
    }
}

/// The runs of one attribute merged as a caller keeping them on disk does: checks that their
/// distinct values in byte order are the attribute's lexicon; returns each first-seen id's
/// final id.
fn merged_rank(
    runs: Vec<(u32, crate::explore::build::Values)>,
    attr: &crate::explore::index::Attribute,
) -> Vec<u32> {
    let mut by_value: std::collections::BTreeMap<String, Vec<u32>> = Default::default();
    let mut raw_ids = 0;
    for (base, values) in runs {
        assert_eq!(base as usize, raw_ids, "runs' ids follow one another");
        raw_ids += values.len();
        for (id, value) in values.sort().ids() {
            by_value
                .entry(value.to_string())
                .or_default()
                .push(base + id);
        }
    }
    let lexicon: Vec<&str> = (0..attr.lexicon.len())
        .map(|i| attr.lexicon.get(i as u32))
        .collect();
    assert!(
        by_value
            .keys()
            .map(String::as_str)
            .eq(lexicon.iter().copied())
    );
    let mut rank = vec![u32::MAX; raw_ids];
    for (r, ids) in by_value.values().enumerate() {
        for &id in ids {
            rank[id as usize] = r as u32;
        }
    }
    assert!(!rank.contains(&u32::MAX));
    rank
}

/// The regions of [`IndexBuilder::take_regions`]'s chunks and the rest, joined the way a
/// caller writes them out: an attribute's values padded with "" for the regions before it
/// first appeared, and at the end.
fn join_regions(
    chunks: Vec<crate::explore::build::RegionChunk>,
    rest: &[crate::explore::index::Regions],
) -> Vec<crate::explore::index::Regions> {
    let mut all: Vec<crate::explore::index::Regions> = rest
        .iter()
        .map(|r| crate::explore::index::Regions {
            name: r.name.clone(),
            ..Default::default()
        })
        .collect();
    let last: Vec<crate::explore::build::RegionChunk> = rest
        .iter()
        .enumerate()
        .map(|(kind, r)| {
            let first = chunks
                .iter()
                .filter(|c| c.kind == kind)
                .map(|c| c.first + c.regions.len())
                .max()
                .unwrap_or(0);
            crate::explore::build::RegionChunk {
                kind,
                first,
                regions: r.clone(),
            }
        })
        .collect();
    let mut chunks_and_rest = chunks;
    chunks_and_rest.extend(last);
    for chunk in chunks_and_rest {
        let r = &mut all[chunk.kind];
        assert_eq!(r.name, chunk.regions.name);
        assert_eq!(r.starts.len(), chunk.first, "chunks in order, none missing");
        r.starts.extend(&chunk.regions.starts);
        r.ends.extend(&chunk.regions.ends);
        for (key, values) in chunk.regions.attrs {
            if !r.attrs.iter().any(|(k, _)| *k == key) {
                r.attrs.push((key.clone(), Vec::new()));
            }
            if let Some((_, all_values)) = r.attrs.iter_mut().find(|(k, _)| *k == key) {
                all_values.resize(chunk.first, String::new());
                all_values.extend(values);
            }
        }
    }
    for r in &mut all {
        for (_, values) in &mut r.attrs {
            values.resize(r.starts.len(), String::new());
        }
    }
    all
}

#[test]
fn regions_taken_in_chunks_are_the_regions_built_whole() {
    use crate::explore::build::IndexBuilder;
    // `lang` first appears on the third text, `n` on a paragraph left open across a take.
    let vrt = "<text id=\"a\">\n<p>\nun\n</p>\n</text>\n<text id=\"b\">\n<p n=\"1\">\ndeux\n\
        <s>\ntrois\n</s>\n</p>\n</text>\n<text id=\"c\" lang=\"fr\">\n<p>\nquatre\n</p>\n\
        <p n=\"3\">\ncinq\n</p>\n</text>\n<text>\n<p>\nsix\n</p>\n</text>\n";
    let mut whole = IndexBuilder::new(&["word"]).unwrap();
    for line in vrt.lines() {
        whole.line(line).unwrap();
    }
    let whole = whole.finish().unwrap();
    assert_eq!(whole.regions[0].attrs[1].1, ["", "", "fr", ""]);
    for every in 1..=vrt.lines().count() {
        let mut builder = IndexBuilder::new(&["word"]).unwrap();
        let mut chunks = Vec::new();
        for (k, line) in vrt.lines().enumerate() {
            builder.line(line).unwrap();
            if k % every == 0 {
                chunks.extend(builder.take_regions());
            }
        }
        let lexicons = builder.finish_lexicons().unwrap();
        assert_eq!(
            join_regions(chunks, &lexicons.regions),
            whole.regions,
            "{every}"
        );
    }
}
