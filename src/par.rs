//! Par: running a function over the two halves of a list at once, over its items taken in turn
//! by two threads (each keeping its results, or folding them into a state of its own), or over
//! items as another function produces them, for the sequential stages of a large conversion
//! (scanning and parsing, walking for references, reading operations, naming them). Results
//! come back in order, so a caller that stops at the first error reports the one a single pass
//! would.

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

/// `f` over each item on two threads that each take the next item not yet taken, so that they
/// finish together however unevenly the items cost (a JSON part dense in small objects parses
/// several times slower per byte than one of long descriptions: cut in two halves by bytes,
/// Kubernetes' parse left one thread idle for about half of it). The results in order; `None`
/// when `f` gave `None` for an item or the second thread panicked (the threads stop taking items
/// after a failure). One thread does all of it when there is only one core or one item.
pub(crate) fn each_taken<T: Sync, R: Send>(
    items: &[T],
    f: impl Fn(&T) -> Option<R> + Sync,
) -> Option<Vec<R>> {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if items.len() < 2 || cores < 2 {
        return items.iter().map(f).collect();
    }
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let take = || {
        let mut done = Vec::new();
        while !failed.load(Ordering::Relaxed) {
            let i = next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = items.get(i) else { break };
            match f(item) {
                Some(r) => done.push((i, r)),
                None => failed.store(true, Ordering::Relaxed),
            }
        }
        done
    };
    let (first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(take);
        (take(), second.join())
    });
    let second = second.ok()?;
    if failed.into_inner() {
        return None;
    }
    Some(in_order(first, second))
}

/// Two threads' results, each in order of index, merged into one list in order.
fn in_order<R>(first: Vec<(usize, R)>, second: Vec<(usize, R)>) -> Vec<R> {
    let mut out = Vec::with_capacity(first.len() + second.len());
    let (mut a, mut b) = (first.into_iter().peekable(), second.into_iter().peekable());
    loop {
        let from_a = match (a.peek(), b.peek()) {
            (Some((i, _)), Some((j, _))) => i < j,
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        match if from_a { a.next() } else { b.next() } {
            Some((_, r)) => out.push(r),
            None => break,
        }
    }
    out
}

/// `f` over each item on two threads that each take the next run of `run` items not yet
/// taken (as [`each_taken`]), each folding what it finds into a state of its own, made by
/// `init`: the states, one a thread, in no particular order, for a caller that combines them
/// in any order (a set of what was found). A panic in either thread is raised again here. One
/// thread does all of it when there is only one core or one run.
pub(crate) fn fold_taken<T: Sync, S: Send>(
    items: &[T],
    run: usize,
    init: impl Fn() -> S + Sync,
    f: impl Fn(&mut S, &T) + Sync,
) -> Vec<S> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let run = run.max(1);
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let fold = |next: &AtomicUsize| {
        let mut state = init();
        loop {
            let start = next.fetch_add(run, Ordering::Relaxed);
            let Some(taken) = items.get(start..) else {
                break;
            };
            taken.iter().take(run).for_each(|item| f(&mut state, item));
        }
        state
    };
    let next = AtomicUsize::new(0);
    if items.len() <= run || cores < 2 {
        return vec![fold(&next)];
    }
    std::thread::scope(|scope| {
        let second = scope.spawn(|| fold(&next));
        let first = fold(&next);
        let second = second
            .join()
            .unwrap_or_else(|panic| std::panic::resume_unwind(panic));
        vec![first, second]
    })
}

/// `f` over each item `produce` gives (on the calling thread, through the function it is
/// handed), a second thread taking each as soon as it is given and the calling thread joining
/// in once `produce` is done: what `produce` returned, and the results in the order the items
/// were given. So the work of finding items (a scan) overlaps the work on them (parsing) instead
/// of coming before it. `None` when `produce` or `f` gave `None` (the threads then stop taking
/// items) or the second thread panicked. One thread does all of it when there is one core.
pub(crate) fn each_produced<T: Send, R: Send, S>(
    produce: impl FnOnce(&mut dyn FnMut(T)) -> Option<S>,
    f: impl Fn(T) -> Option<R> + Sync,
) -> Option<(S, Vec<R>)> {
    use std::sync::{Condvar, Mutex, PoisonError};
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    if cores < 2 {
        let mut items = Vec::new();
        let produced = produce(&mut |item| items.push(item))?;
        let out = items.into_iter().map(&f).collect::<Option<Vec<R>>>()?;
        return Some((produced, out));
    }
    /// Items given and not yet taken, and how the work stands.
    struct Queue<T> {
        items: Vec<Option<T>>,
        next: usize,
        done: bool,
        failed: bool,
        /// Threads waiting for an item (so that giving one wakes a thread only if one waits).
        waiting: usize,
    }
    let queue = Mutex::new(Queue {
        items: Vec::new(),
        next: 0,
        done: false,
        failed: false,
        waiting: 0,
    });
    let ready = Condvar::new();
    // Nothing that can panic runs while the lock is held: a poisoned lock is taken over.
    let lock = || queue.lock().unwrap_or_else(PoisonError::into_inner);
    let take = || {
        let mut done = Vec::new();
        let mut q = lock();
        loop {
            if q.failed {
                break;
            }
            if q.next < q.items.len() {
                let i = q.next;
                q.next += 1;
                let Some(item) = q.items[i].take() else {
                    break;
                };
                drop(q);
                let failed = match f(item) {
                    Some(r) => {
                        done.push((i, r));
                        false
                    }
                    None => true,
                };
                q = lock();
                if failed {
                    q.failed = true;
                    ready.notify_all();
                }
            } else if q.done {
                break;
            } else {
                q.waiting += 1;
                q = ready.wait(q).unwrap_or_else(PoisonError::into_inner);
                q.waiting -= 1;
            }
        }
        done
    };
    /// Marks the producing done however it ends (a panic included, so that the second thread
    /// never waits for items that will not come).
    struct Done<'q, T>(&'q Mutex<Queue<T>>, &'q Condvar, bool);
    impl<T> Drop for Done<'_, T> {
        fn drop(&mut self) {
            let mut q = self.0.lock().unwrap_or_else(PoisonError::into_inner);
            q.done = true;
            q.failed |= !self.2;
            self.1.notify_all();
        }
    }
    let (produced, first, second) = std::thread::scope(|scope| {
        let second = scope.spawn(take);
        let mut done = Done(&queue, &ready, false);
        let produced = produce(&mut |item| {
            let mut q = lock();
            q.items.push(Some(item));
            if q.waiting > 0 {
                ready.notify_one();
            }
        });
        done.2 = produced.is_some();
        drop(done);
        let first = take();
        (produced, first, second.join())
    });
    let second = second.ok()?;
    let q = queue.into_inner().unwrap_or_else(PoisonError::into_inner);
    if q.failed {
        return None;
    }
    let produced = produced?;
    let out = in_order(first, second);
    (out.len() == q.items.len()).then_some((produced, out))
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    /// `x`, or a panic on the spawned thread (unnamed, unlike a test's) at its first item; the
    /// calling thread waits at its first item until that has happened, so that the spawned one
    /// surely gets an item.
    fn panics_on_spawned(spawned_took_one: &AtomicBool, x: u64) -> Option<u64> {
        if std::thread::current().name().is_none() {
            spawned_took_one.store(true, Ordering::SeqCst);
            panic!("spawned thread panics");
        }
        while !spawned_took_one.load(Ordering::SeqCst) {
            std::thread::sleep(std::time::Duration::from_micros(100));
        }
        Some(x)
    }

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
    fn each_taken_keeps_order_and_stops_at_a_failure() {
        let items: Vec<u64> = (0..1000).collect();
        // Uneven costs, so that the threads interleave.
        let slow = |&x: &u64| {
            let spin = if x % 7 == 0 { 20_000 } else { 10 };
            Some(
                (0..spin).fold(x, |a, b| std::hint::black_box(a ^ b))
                    ^ (0..spin).fold(0, |a, b| a ^ b),
            )
        };
        assert_eq!(super::each_taken(&items, slow), Some(items.clone()));
        let fails_at_500 = |&x: &u64| (x != 500).then_some(x);
        assert_eq!(super::each_taken(&items, fails_at_500), None);
        assert_eq!(super::each_taken(&items[..1], fails_at_500), Some(vec![0]));
        assert_eq!(super::each_taken(&[] as &[u64], fails_at_500), Some(vec![]));
        let spawned_took_one = AtomicBool::new(false);
        let panics = |&x: &u64| panics_on_spawned(&spawned_took_one, x);
        let two_threads = std::thread::available_parallelism().is_ok_and(|n| n.get() > 1);
        if two_threads {
            assert_eq!(super::each_taken(&items, panics), None);
        } else {
            // One core: no second thread, nothing to panic (and nothing to wait for).
            spawned_took_one.store(true, Ordering::SeqCst);
            assert_eq!(super::each_taken(&items, panics), Some(items.clone()));
        }
    }

    #[test]
    fn fold_taken_sees_every_item_once() {
        let items: Vec<u64> = (0..10_000).collect();
        for run in [0, 1, 7, 32, 20_000] {
            let states = super::fold_taken(&items, run, Vec::new, |seen, &x| seen.push(x));
            let mut seen: Vec<u64> = states.into_iter().flatten().collect();
            seen.sort_unstable();
            assert_eq!(seen, items, "run {run}");
        }
        let none = super::fold_taken(&[] as &[u64], 32, || 0, |n, _| *n += 1);
        assert_eq!(none.iter().sum::<u32>(), 0);
    }

    /// The results come in the order the items were given, whichever thread took them, with
    /// items given slowly and quickly; a failure in `f` or in `produce` gives `None`, as does
    /// a panic in the second thread, and a panic while producing does not leave it waiting.
    #[test]
    fn each_produced_keeps_order_and_stops_at_a_failure() {
        let spin = |n: u64| (0..n).fold(0u64, |a, b| std::hint::black_box(a ^ b));
        let produce = |n: u64, fail: bool| {
            move |give: &mut dyn FnMut(u64)| {
                for x in 0..n {
                    // Now and then slower than the work, so that the second thread waits.
                    if x.is_multiple_of(50) {
                        spin(200_000);
                    }
                    give(x);
                }
                (!fail).then_some("done")
            }
        };
        let double = |x: u64| {
            if x.is_multiple_of(7) {
                spin(20_000);
            }
            Some(x * 2)
        };
        let (s, out) = super::each_produced(produce(1000, false), double).unwrap();
        assert_eq!(s, "done");
        assert_eq!(out, (0..1000).map(|x| x * 2).collect::<Vec<_>>());
        let (_, none) = super::each_produced(produce(0, false), double).unwrap();
        assert!(none.is_empty());
        assert_eq!(super::each_produced(produce(1000, true), double), None);
        let fails_at_500 = |x: u64| (x != 500).then_some(x);
        assert_eq!(
            super::each_produced(produce(1000, false), fails_at_500),
            None
        );
        let spawned_took_one = AtomicBool::new(false);
        if std::thread::available_parallelism().is_ok_and(|n| n.get() > 1) {
            let panics = |x: u64| panics_on_spawned(&spawned_took_one, x);
            let out = super::each_produced(produce(1000, false), panics);
            assert_eq!(out, None);
        }
        let producing_panics = std::panic::catch_unwind(|| {
            super::each_produced(
                |give: &mut dyn FnMut(u64)| -> Option<()> {
                    give(1);
                    panic!("the scan panics");
                },
                double,
            )
        });
        assert!(producing_panics.is_err());
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
