//! Work on both cores with the order kept: a whole list ([`map`]), or a stream of any length
//! in batches of bounded size ([`ordered`]).
//!
//! **In:** items, a pure function run on every core, and (for a stream) a sink run on the
//! calling thread. **Out:** the results in the items' order.
//!
//! **Invariants:** results never depend on thread scheduling; a stream holds at most two
//! batches at a time (one being mapped, one being sunk), so its memory is bounded by the batch
//! size, not by the stream's length; an error in the source, the function or the sink stops
//! the stream and is returned.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Maps `items` on all cores, keeping their order.
pub fn map<T: Send, U: Send>(
    items: Vec<T>,
    f: impl Fn(T) -> U + Sync,
    bar: &indicatif::ProgressBar,
) -> Vec<U> {
    let n = items.len();
    let workers = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(1)
        .min(n.max(1));
    let slots: Vec<std::sync::Mutex<Option<T>>> = items
        .into_iter()
        .map(|t| std::sync::Mutex::new(Some(t)))
        .collect();
    let results: Vec<std::sync::Mutex<Option<U>>> =
        (0..n).map(|_| std::sync::Mutex::new(None)).collect();
    let next = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= n {
                        break;
                    }
                    let item = slots[i].lock().ok().and_then(|mut s| s.take());
                    if let Some(item) = item {
                        let value = f(item);
                        if let Ok(mut slot) = results[i].lock() {
                            *slot = Some(value);
                        }
                    }
                    bar.inc(1);
                }
            });
        }
    });
    results
        .into_iter()
        .filter_map(|m| m.into_inner().ok().flatten())
        .collect()
}

/// The most items in one batch of [`ordered`], whatever their size.
const MAX_BATCH_ITEMS: usize = 4096;

/// Streams `source` through `f` on all cores and `sink` on this thread, in order: while one
/// batch (items adding up to `batch_bytes`, as the source measures them) is mapped, this
/// thread sinks the previous one and reads the next.
pub fn ordered<T: Send, U: Send>(
    mut source: impl Iterator<Item = anyhow::Result<(T, usize)>>,
    batch_bytes: usize,
    f: impl Fn(T) -> anyhow::Result<U> + Sync,
    mut sink: impl FnMut(U) -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut read_batch = || -> anyhow::Result<Vec<T>> {
        let (mut batch, mut bytes) = (Vec::new(), 0usize);
        while bytes < batch_bytes && batch.len() < MAX_BATCH_ITEMS {
            match source.next() {
                None => break,
                Some(item) => {
                    let (item, size) = item?;
                    bytes += size;
                    batch.push(item);
                }
            }
        }
        Ok(batch)
    };
    let hidden = indicatif::ProgressBar::hidden();
    let (f, hidden) = (&f, &hidden);
    let mut next = read_batch()?;
    let mut done: Vec<anyhow::Result<U>> = Vec::new();
    while !next.is_empty() || !done.is_empty() {
        let batch = std::mem::take(&mut next);
        let mapped = std::thread::scope(|scope| -> anyhow::Result<Vec<anyhow::Result<U>>> {
            let worker = scope.spawn(move || map(batch, f, hidden));
            // An error here returns once the batch being mapped is finished (the scope
            // waits for it), never leaving a thread behind.
            for result in std::mem::take(&mut done) {
                sink(result?)?;
            }
            next = read_batch()?;
            worker
                .join()
                .map_err(|_| anyhow::anyhow!("a worker thread stopped on an internal error"))
        })?;
        done = mapped;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn map_keeps_order() {
        let bar = indicatif::ProgressBar::hidden();
        let out = map((0..1000).collect(), |x: i32| x * 2, &bar);
        assert_eq!(out, (0..1000).map(|x| x * 2).collect::<Vec<_>>());
    }

    #[test]
    fn ordered_keeps_order_in_small_batches() {
        let source = (0..10_000u64).map(|i| Ok((i, 3)));
        let mut seen = Vec::new();
        ordered(
            source,
            100,
            |x| Ok(x * x),
            |y| {
                seen.push(y);
                Ok(())
            },
        )
        .unwrap();
        assert_eq!(seen, (0..10_000u64).map(|x| x * x).collect::<Vec<_>>());
    }

    #[test]
    fn ordered_stops_at_the_first_error_of_source_function_or_sink() {
        let source = (0..1000u64).map(|i| {
            if i == 700 {
                Err(anyhow::anyhow!("source 700"))
            } else {
                Ok((i, 1))
            }
        });
        let mut seen = 0;
        let err = ordered(source, 10, Ok, |_| {
            seen += 1;
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "source 700");
        assert!(seen <= 700);
        let err = ordered(
            (0..1000u64).map(|i| Ok((i, 1))),
            10,
            |x| {
                if x == 55 {
                    anyhow::bail!("function 55")
                }
                Ok(x)
            },
            |_| Ok(()),
        )
        .unwrap_err();
        assert_eq!(err.to_string(), "function 55");
        let err = ordered((0..1000u64).map(|i| Ok((i, 1))), 10, Ok, |x| {
            if x == 3 {
                anyhow::bail!("sink 3")
            }
            Ok(())
        })
        .unwrap_err();
        assert_eq!(err.to_string(), "sink 3");
    }
}
