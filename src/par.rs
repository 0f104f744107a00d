//! Par: running a function over the two halves of a list at once, for the sequential stages of a
//! large conversion (parsing, reading operations, naming them). Results come back in order, so a
//! caller that stops at the first error reports the one a single pass would.

/// From this many items on, a sequential stage is worth splitting in two: a thread costs tens
/// of microseconds, about what reading one path item's operations or naming a few operations
/// takes (Kubernetes: reading and naming its 845 operations is 81 million instructions).
pub(crate) const MIN_ITEMS: usize = 128;

/// `f` over the two halves of `items`, the second on another thread, when there are at least
/// `min` items and two cores; else `f` over all of them. The results in order.
pub(crate) fn halves<T: Sync, R: Send>(
    items: &[T],
    min: usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> Vec<R> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if items.len() < min || cores < 2 {
        return vec![f(items)];
    }
    let (first, second) = items.split_at(items.len() / 2);
    std::thread::scope(|scope| {
        let second = scope.spawn(|| f(second));
        let first = f(first);
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        vec![first, second]
    })
}

/// `f` over two runs of `items` of about equal weight (the second starts where half the total
/// weight is behind), the second run on another thread; its result is `Err` (with the panic) if
/// that thread panicked, for callers that then do the work another way (the parsers: plainly,
/// for the error).
pub(crate) fn halves_by_weight<T: Sync, R: Send>(
    items: &[T],
    weight: impl Fn(&T) -> usize,
    f: impl Fn(&[T]) -> R + Sync,
) -> (R, std::thread::Result<R>) {
    let total: usize = items.iter().map(&weight).sum();
    let mut behind = 0;
    let cut = items
        .iter()
        .position(|item| {
            behind += weight(item);
            behind > total / 2
        })
        .map_or(items.len(), |i| i + 1);
    let (first, second) = items.split_at(cut);
    std::thread::scope(|scope| {
        let second = scope.spawn(|| f(second));
        (f(first), second.join())
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn halves_keep_order() {
        let items: Vec<u32> = (0..10).collect();
        let sums = |xs: &[u32]| xs.iter().map(|x| x * 2).collect::<Vec<_>>();
        let out: Vec<u32> = super::halves(&items, 4, sums)
            .into_iter()
            .flatten()
            .collect();
        assert_eq!(out, (0..10).map(|x| x * 2).collect::<Vec<_>>());
        assert_eq!(super::halves(&items, 11, |xs: &[u32]| xs.len()), vec![10]);
    }

    #[test]
    fn halves_by_weight_cut_where_half_the_weight_is_behind() {
        let items = [10usize, 1, 1, 1, 10];
        let (first, second) = super::halves_by_weight(&items, |&w| w, |xs: &[usize]| xs.to_vec());
        assert_eq!((first, second.ok()), (vec![10, 1, 1], Some(vec![1, 10])));
        let (_, panicked) = super::halves_by_weight(
            &items,
            |&w| w,
            |xs: &[usize]| {
                assert!(xs[0] != 1, "the second run panics");
            },
        );
        assert!(panicked.is_err());
    }
}
