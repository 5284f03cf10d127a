//! PageRank by power iteration over an edge list (seed 004, section 2.5 "Ohodnocení stránek").
//!
//! **In:** a node count `n`, directed edges `(source, target)` between `0..n`, the damping
//! factor `d` (seed 004 recommends `k = 0.85`), a tolerance and an iteration cap.
//!
//! **Out:** one score per node: the textbook normalised formula
//! `R(i) = (1-d)/N + d · (Σ_{j→i} R(j)/outdeg(j) + Σ_{j dangling} R(j)/N)`, where the rank of
//! pages without out-links is spread uniformly over all pages (as networkx does).
//!
//! **Invariants:** the result has length `n` and sums to 1 (for `n > 0`); every score is
//! finite and positive. Edges with an endpoint `>= n` are ignored; a repeated edge counts once
//! per occurrence (a multigraph, so `outdeg` counts it twice); a self-loop is an ordinary
//! edge. Convergence uses networkx's test (`Σ|R_t − R_{t−1}| < n · tolerance`), so results
//! match `nx.pagerank(G, alpha=d, tol=tolerance)`. Each iteration is O(V + E) on a compressed
//! in-edge list (petgraph's `page_rank` is O(V·E) per iteration, too slow for a crawl).
//! Never panics: a damping outside `[0, 1]` is clamped and a non-finite one becomes 0.85.

/// The damping factor recommended by seed 004 ("doporučená hodnota k = 0,85").
pub const DEFAULT_DAMPING: f64 = 0.85;

/// PageRank of the `n` nodes of the directed graph `edges` (see the module doc).
pub fn pagerank(
    n: usize,
    edges: &[(usize, usize)],
    damping: f64,
    tolerance: f64,
    max_iter: usize,
) -> Vec<f64> {
    pagerank_over(n, || edges.iter().copied(), damping, tolerance, max_iter)
}

/// [`pagerank`] over edges listed twice by `edges()` (to count, then to place them), so a
/// caller with its own compact edge store needs no `(usize, usize)` copy of it.
pub fn pagerank_over<I: Iterator<Item = (usize, usize)>>(
    n: usize,
    edges: impl Fn() -> I,
    damping: f64,
    tolerance: f64,
    max_iter: usize,
) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let (d, tolerance) = settings(damping, tolerance);

    // Compressed in-edge lists: `sources[start[i]..start[i+1]]` are the pages linking to `i`.
    let mut outdeg = vec![0u32; n];
    let mut start = vec![0usize; n + 1];
    for (s, t) in edges() {
        if s < n && t < n {
            outdeg[s] = outdeg[s].saturating_add(1);
            start[t + 1] += 1;
        }
    }
    for i in 0..n {
        start[i + 1] += start[i];
    }
    let mut fill = start.clone();
    // u32 sources: a crawl's graph has fewer than 4 billion nodes, and this list has one entry
    // per edge.
    let mut sources = vec![0u32; start[n]];
    for (s, t) in edges() {
        if s < n && t < n {
            sources[fill[t]] = u32::try_from(s).unwrap_or(u32::MAX);
            fill[t] += 1;
        }
    }

    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    let mut share = vec![0.0f64; n];
    let mut next = vec![0.0f64; n];
    for _ in 0..max_iter {
        let dangling = shares(&rank, &outdeg, &mut share);
        let base = (1.0 - d) / nf + d * dangling / nf;
        let mut err = 0.0;
        for (i, slot) in next.iter_mut().enumerate() {
            let inflow: f64 = sources[start[i]..start[i + 1]]
                .iter()
                .map(|&j| share.get(j as usize).copied().unwrap_or(0.0))
                .sum();
            *slot = base + d * inflow;
            err += (*slot - rank[i]).abs();
        }
        std::mem::swap(&mut rank, &mut next);
        if err < nf * tolerance {
            break;
        }
    }
    renormalised(rank)
}

/// [`pagerank`] over a graph that lists its out-links source by source (`out(j)`), with no
/// copy of its edges: each source's rank flows to its targets (push) instead of being gathered
/// per target. The sums are the same, in the same order, as [`pagerank_over`] given the edges
/// source by source, so the result is the same to the last bit; what it holds is four numbers
/// per node (about 28 bytes), not one more per edge. Targets `>= n` are ignored.
pub fn pagerank_out<I: Iterator<Item = usize>>(
    n: usize,
    out: impl Fn(usize) -> I,
    damping: f64,
    tolerance: f64,
    max_iter: usize,
) -> Vec<f64> {
    struct ByNode<F>(usize, F);
    impl<I: Iterator<Item = usize>, F: Fn(usize) -> I> OutLinks for ByNode<F> {
        fn each_link(&self, mut f: impl FnMut(usize, usize)) {
            for j in 0..self.0 {
                for t in (self.1)(j) {
                    f(j, t);
                }
            }
        }
    }
    pagerank_links(n, &ByNode(n, out), damping, tolerance, max_iter)
}

/// A graph that lists its links source by source, sources in increasing order, in one pass
/// (a graph whose links are read from storage goes through them once per iteration).
pub trait OutLinks {
    /// Calls `f(source, target)` for every link, grouped by source, sources in order.
    fn each_link(&self, f: impl FnMut(usize, usize));
}

/// [`pagerank_out`] over a graph that goes through its links in one pass ([`OutLinks`]): the
/// same sums in the same order, so the same result to the last bit.
pub fn pagerank_links(
    n: usize,
    links: &impl OutLinks,
    damping: f64,
    tolerance: f64,
    max_iter: usize,
) -> Vec<f64> {
    if n == 0 {
        return Vec::new();
    }
    let (d, tolerance) = settings(damping, tolerance);
    let mut outdeg = vec![0u32; n];
    links.each_link(|j, t| {
        if t < n
            && let Some(deg) = outdeg.get_mut(j)
        {
            *deg = deg.saturating_add(1);
        }
    });
    let nf = n as f64;
    let mut rank = vec![1.0 / nf; n];
    let mut share = vec![0.0f64; n];
    let mut next = vec![0.0f64; n];
    for _ in 0..max_iter {
        let dangling = shares(&rank, &outdeg, &mut share);
        let base = (1.0 - d) / nf + d * dangling / nf;
        // The inflow of every node first, in `next`; then the rank made from it.
        next.fill(0.0);
        links.each_link(|j, t| {
            if let (Some(&sh), Some(slot)) = (share.get(j), next.get_mut(t))
                && outdeg[j] != 0
            {
                *slot += sh;
            }
        });
        let mut err = 0.0;
        for (slot, &r) in next.iter_mut().zip(&rank) {
            *slot = base + d * *slot;
            err += (*slot - r).abs();
        }
        std::mem::swap(&mut rank, &mut next);
        if err < nf * tolerance {
            break;
        }
    }
    renormalised(rank)
}

/// The damping factor clamped to `[0, 1]` (0.85 when not finite) and the tolerance (0 when not
/// a positive number).
fn settings(damping: f64, tolerance: f64) -> (f64, f64) {
    let d = if damping.is_finite() {
        damping.clamp(0.0, 1.0)
    } else {
        DEFAULT_DAMPING
    };
    let tolerance = if tolerance.is_finite() && tolerance > 0.0 {
        tolerance
    } else {
        0.0
    };
    (d, tolerance)
}

/// Each node's share of its rank per out-link (0 for a page without links) into `share`; the
/// rank of the pages without links, which is spread over all pages.
fn shares(rank: &[f64], outdeg: &[u32], share: &mut [f64]) -> f64 {
    let mut dangling = 0.0;
    for ((&r, &deg), sh) in rank.iter().zip(outdeg).zip(share.iter_mut()) {
        if deg == 0 {
            dangling += r;
            *sh = 0.0;
        } else {
            *sh = r / f64::from(deg);
        }
    }
    dangling
}

/// Rounding drifts the total by ~1e-16 per iteration; renormalised so the invariant is exact
/// to the last bit that matters.
fn renormalised(mut rank: Vec<f64>) -> Vec<f64> {
    let total: f64 = rank.iter().sum();
    if total.is_finite() && total > 0.0 {
        for r in &mut rank {
            *r /= total;
        }
    }
    rank
}

#[cfg(test)]
mod tests {
    use super::*;

    fn close(got: &[f64], want: &[f64]) {
        assert_eq!(got.len(), want.len());
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert!((g - w).abs() < 1e-9, "node {i}: got {g}, want {w}");
        }
        assert!((got.iter().sum::<f64>() - 1.0).abs() < 1e-12);
    }

    // Reference values: networkx 3.4.2, `nx.pagerank(G, alpha=0.85, tol=1e-12)`.
    #[test]
    fn matches_networkx_on_a_cycle() {
        let r = pagerank(3, &[(0, 1), (1, 2), (2, 0)], 0.85, 1e-12, 100);
        close(&r, &[1.0 / 3.0; 3]);
    }

    #[test]
    fn matches_networkx_on_a_small_web() {
        let r = pagerank(
            4,
            &[(0, 1), (0, 2), (1, 2), (2, 0), (3, 2)],
            0.85,
            1e-12,
            100,
        );
        close(
            &r,
            &[
                0.37252685132882424,
                0.1958239118147503,
                0.39414923685642533,
                0.037500000000000006,
            ],
        );
    }

    #[test]
    fn matches_networkx_with_dangling_nodes_and_a_self_loop() {
        // Nodes 2 and 4 have no out-links; 3 only links to itself.
        let r = pagerank(5, &[(0, 1), (1, 2), (0, 2), (3, 3)], 0.85, 1e-12, 100);
        close(
            &r,
            &[
                0.07856745343337776,
                0.11195862114270477,
                0.20712344911444852,
                0.5237830228760912,
                0.07856745343337776,
            ],
        );
    }

    #[test]
    fn two_node_case_by_hand() {
        // 0 → 1, 1 dangling (its rank is spread over both nodes):
        // R0 = 0.075 + 0.425·R1 and R0 + R1 = 1, so R0 = 0.5/1.425 = 20/57 and R1 = 37/57.
        let r = pagerank(2, &[(0, 1)], 0.85, 1e-14, 1000);
        close(&r, &[20.0 / 57.0, 37.0 / 57.0]);
    }

    #[test]
    fn pushing_over_out_lists_gives_the_same_bits_as_gathering() {
        // A pseudo-random multigraph with dangling nodes, self-loops and repeated edges.
        let n = 500;
        let mut x: u64 = 7;
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
        for _ in 0..4000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let s = (x >> 33) as usize % n;
            let t = (x >> 13) as usize % (n + 3);
            if !s.is_multiple_of(7) {
                out[s].push(t);
            }
        }
        let edges: Vec<(usize, usize)> = out
            .iter()
            .enumerate()
            .flat_map(|(s, ts)| ts.iter().map(move |&t| (s, t)))
            .collect();
        for (d, tol, iters) in [(0.85, 1e-12, 200), (0.5, 1e-6, 7), (1.0, 0.0, 30)] {
            let gathered = pagerank(n, &edges, d, tol, iters);
            let pushed = pagerank_out(n, |j| out[j].iter().copied(), d, tol, iters);
            let bits = |r: &[f64]| r.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&gathered), bits(&pushed), "d = {d}");
        }
        assert!(pagerank_out(0, |_| std::iter::empty(), 0.85, 1e-9, 10).is_empty());
    }

    #[test]
    fn hostile_parameters_do_not_panic() {
        assert!(pagerank(0, &[(0, 1)], 0.85, 1e-9, 10).is_empty());
        let r = pagerank(2, &[(0, 7), (9, 1)], f64::NAN, f64::NAN, 5);
        close(&r, &[0.5, 0.5]);
        let r = pagerank(3, &[(0, 1)], 7.0, -1.0, 0);
        close(&r, &[1.0 / 3.0; 3]);
    }

    #[test]
    fn a_million_edges_is_fast() {
        // A deterministic pseudo-random graph (xorshift), 100k nodes and 1M edges.
        let n = 100_000;
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges: Vec<(usize, usize)> = (0..1_000_000)
            .map(|_| ((next() % n as u64) as usize, (next() % n as u64) as usize))
            .collect();
        let t = std::time::Instant::now();
        let r = pagerank(n, &edges, 0.85, 1e-12, 200);
        eprintln!("pagerank: {n} nodes, 1,000,000 edges in {:?}", t.elapsed());
        assert_eq!(r.len(), n);
        assert!((r.iter().sum::<f64>() - 1.0).abs() < 1e-9);
        assert!(r.iter().all(|&v| v.is_finite() && v > 0.0));
        // The fixed point: one more step from the result changes nothing measurable.
        let again = pagerank_step(n, &edges, &r);
        let err: f64 = again.iter().zip(&r).map(|(a, b)| (a - b).abs()).sum();
        assert!(err < 1e-6, "not a fixed point: {err}");
    }

    /// One naive power-iteration step, written independently of the CSR code.
    fn pagerank_step(n: usize, edges: &[(usize, usize)], r: &[f64]) -> Vec<f64> {
        let mut out = vec![0usize; n];
        for &(s, _) in edges {
            out[s] += 1;
        }
        let dangling: f64 = (0..n).filter(|&j| out[j] == 0).map(|j| r[j]).sum();
        let mut next = vec![0.15 / n as f64 + 0.85 * dangling / n as f64; n];
        for &(s, t) in edges {
            next[t] += 0.85 * r[s] / out[s] as f64;
        }
        next
    }
}
