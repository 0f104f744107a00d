//! Stream: `convert --format json` building and writing at once. Tools are built in chunks on
//! rayon's pool (each thread with its own schema converter, all sharing the plan's definitions)
//! and rendered as JSON lines; the calling thread writes the chunks in document order and builds
//! while the next one to write is not ready. The list is never held whole, and the bytes are
//! those of [`super::emit::write_as`] with `--format json` whatever the number of threads.

use super::emit::{JsonLines, Shape, line_separator, write_line};
use super::file::{Output, to_stdout};
use crate::error::{Error, Result};
use crate::tool::reviewed::HintsFile;
use crate::tool::{Builder, Options, Plan, Summary};
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Tools a thread builds at a time, as one piece of text.
const CHUNK: usize = 16;
/// Chunks built ahead of the writer, per thread.
const AHEAD: usize = 2;
/// A new chunk buffer's capacity: most chunks fit, so that a chunk is not copied again and
/// again as its buffer grows (memory is only taken as it is written).
const BUFFER: usize = 1 << 20;
/// Most threads by default (the calling thread among them).
const MAX_WORKERS: usize = 4;
/// Most threads asked for with `--threads`.
pub const MAX_THREADS: usize = 64;
/// Fewer tools than this are built by one thread: more cost threads for little to share out.
const MIN_PARALLEL_TOOLS: usize = 128;

/// Convert `doc` and write the tools as `--format json` in `shape` to `output` (standard output
/// when `None`), chunk by chunk as they are built. Nothing is written before the first tool, so
/// an early failure leaves standard output empty; a failure after some tools leaves a file
/// untouched but standard output truncated (with the error reported). `Ok(None)`: the reader
/// closed standard output (`| head`) before the end, which is not an error. `threads`: how many
/// threads build tools, the calling thread and jobs on rayon's current pool, at most the pool's
/// threads plus the calling thread when it is not one of them (`None`: one per pool thread, at
/// most [`MAX_WORKERS`], one for a short list).
pub fn convert_to(
    doc: &crate::read::Document,
    options: &Options,
    hints: Option<&HintsFile>,
    shape: Shape,
    output: Option<&Path>,
    threads: Option<usize>,
) -> Result<Option<Summary>> {
    convert_keeping(doc, options, hints, shape, output, threads).map(|(summary, _)| summary)
}

/// What a conversion leaves to free, handed back by [`convert_keeping`]: the operations it
/// listed and the definitions its tools shared. A program that ends next can skip freeing them with
/// `std::mem::forget`, as the command line does.
pub struct Remains<'d> {
    _plan: Plan<'d>,
}

/// [`convert_to`], handing what is left to free back to the caller instead of freeing it.
pub fn convert_keeping<'d>(
    doc: &'d crate::read::Document,
    options: &'d Options,
    hints: Option<&'d HintsFile>,
    shape: Shape,
    output: Option<&Path>,
    threads: Option<usize>,
) -> Result<(Option<Summary>, Remains<'d>)> {
    // Created first, so that an unwritable output fails before any work, whatever the document.
    let file = output.map(Output::create).transpose()?;
    let plan = Plan::new(doc, options, hints)?;
    // More helpers than the pool can run would only queue.
    let room = rayon::current_num_threads() + usize::from(rayon::current_thread_index().is_none());
    let threads = match threads {
        Some(n) => n.clamp(1, MAX_THREADS).min(room),
        None if plan.len() < MIN_PARALLEL_TOOLS => 1,
        None => room.min(MAX_WORKERS),
    };
    let mut ended = false;
    let mut pump = |w: &mut dyn Write| -> Result<()> {
        build_and_write(&plan, threads, shape, w)?;
        ended = true;
        Ok(())
    };
    match file {
        Some(file) => {
            file.fill(pump)?;
        }
        None => to_stdout(&mut pump)?,
    }
    // Without an error and without the end of the list, standard output was closed.
    let summary = ended.then(|| plan.summary());
    Ok((summary, Remains { _plan: plan }))
}

/// Build the plan's tools on `threads` threads, chunk by chunk, and write the chunks in order.
/// This thread is one of them: it writes each chunk once it is built, and builds the next
/// unclaimed chunk itself while the one it must write next is still being built. The others are
/// jobs on rayon's pool (the pool the command line's whole conversion runs on, so that reading,
/// building and writing share the same threads). Each takes the next chunk as it is done with
/// one, at most [`AHEAD`] chunks a thread ahead of the writer, and waits (holding its pool
/// thread) while it would be further ahead. Such a wait ends because neither building a tool
/// nor writing calls into rayon: a thread waiting on the pool there could run a waiting helper
/// on top of the writer it waits for.
fn build_and_write(plan: &Plan<'_>, threads: usize, shape: Shape, w: &mut dyn Write) -> Result<()> {
    let run = Run {
        plan,
        shape,
        chunks: plan.len().div_ceil(CHUNK),
        window: threads * AHEAD,
        next: AtomicUsize::new(0),
        shared: Mutex::new(Shared::default()),
        changed: Condvar::new(),
    };
    rayon::in_place_scope(|scope| {
        // However the writer ends (the list written, an error, a panic), the other threads stop
        // waiting for room.
        let _stop = Stop {
            run: &run,
            only_on_panic: false,
        };
        for _ in 1..threads {
            scope.spawn(|_| run.help());
        }
        run.write_in_order(w)
    })
}

/// One conversion's chunks and what its threads share.
struct Run<'p, 'd> {
    plan: &'p Plan<'d>,
    shape: Shape,
    chunks: usize,
    /// Most chunks claimed beyond the last one written.
    window: usize,
    /// The next chunk no thread has claimed.
    next: AtomicUsize,
    shared: Mutex<Shared>,
    changed: Condvar,
}

/// What the threads share.
#[derive(Default)]
struct Shared {
    /// Built chunks not yet written, by number.
    done: std::collections::BTreeMap<usize, Result<Vec<u8>>>,
    /// Chunks written.
    written: usize,
    /// Buffers the writer has emptied, filled again: a buffer grown to a chunk's size is not
    /// grown (copied) again, and its memory is not taken fresh from the system.
    spare: Vec<Vec<u8>>,
    /// The writer stopped (an error, or standard output closed), or a thread panicked.
    stop: bool,
}

/// Sets [`Shared::stop`] when dropped (with `only_on_panic`, only while panicking).
struct Stop<'r, 'p, 'd> {
    run: &'r Run<'p, 'd>,
    only_on_panic: bool,
}

impl Drop for Stop<'_, '_, '_> {
    fn drop(&mut self) {
        if !self.only_on_panic || std::thread::panicking() {
            self.run.lock().stop = true;
            self.run.changed.notify_all();
        }
    }
}

impl<'d> Run<'_, 'd> {
    fn lock(&self) -> MutexGuard<'_, Shared> {
        self.shared.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn wait<'s>(&self, state: MutexGuard<'s, Shared>) -> MutexGuard<'s, Shared> {
        self.changed
            .wait(state)
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Chunk `chunk`'s tools as JSON lines, in a spare buffer.
    fn build(&self, chunk: usize, builder: &mut Builder<'d>) -> Result<Vec<u8>> {
        let spare = self.lock().spare.pop();
        let mut text = spare.unwrap_or_else(|| Vec::with_capacity(BUFFER));
        for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(self.plan.len()) {
            let tool = self.plan.build(i, builder)?;
            text.extend_from_slice(line_separator(i));
            write_line(&mut text, &tool, self.shape);
        }
        Ok(text)
    }

    /// A helper (a job on the pool): builds the next unclaimed chunk, as long as there is one and
    /// the writer has not stopped, waiting while it would be too far ahead of the writer.
    fn help(&self) {
        // A thread that panics stops the writer, which would wait for its chunk.
        let _stop = Stop {
            run: self,
            only_on_panic: true,
        };
        let mut builder = self.plan.builder();
        loop {
            let chunk = self.next.fetch_add(1, Ordering::Relaxed);
            if chunk >= self.chunks {
                return;
            }
            let mut state = self.lock();
            while chunk >= state.written + self.window && !state.stop {
                state = self.wait(state);
            }
            if state.stop {
                return;
            }
            drop(state);
            let built = self.build(chunk, &mut builder);
            self.lock().done.insert(chunk, built);
            self.changed.notify_all();
        }
    }

    /// The writer: each chunk in order, building unclaimed chunks while the next one is not
    /// built yet.
    fn write_in_order(&self, w: &mut dyn Write) -> Result<()> {
        let mut builder = self.plan.builder();
        // Opened at the first tool, so that an early failure writes nothing.
        let mut list: Option<JsonLines<&mut dyn Write>> = None;
        let mut w = Some(w);
        for chunk in 0..self.chunks {
            let text = loop {
                let mut state = self.lock();
                if let Some(text) = state.done.remove(&chunk) {
                    break text;
                }
                if state.stop {
                    return Err(stopped());
                }
                // The chunk is being built elsewhere, or not claimed yet: build the next
                // unclaimed one meanwhile, unless that is too far ahead.
                let unclaimed = self.next.load(Ordering::Relaxed);
                if unclaimed < self.chunks && unclaimed < chunk + self.window {
                    drop(state);
                    let claimed = self.next.fetch_add(1, Ordering::Relaxed);
                    if claimed >= self.chunks {
                        continue;
                    }
                    let built = self.build(claimed, &mut builder);
                    if claimed == chunk {
                        break built;
                    }
                    self.lock().done.insert(claimed, built);
                } else {
                    drop(self.wait(state));
                }
            };
            let mut text = text?;
            let list = match &mut list {
                Some(list) => list,
                None => list.insert(JsonLines::start(w.take().ok_or_else(stopped)?, self.shape)?),
            };
            let tools = (self.plan.len() - chunk * CHUNK).min(CHUNK);
            list.push_separated(&text, tools)?;
            text.clear();
            let mut state = self.lock();
            state.written = chunk + 1;
            state.spare.push(text);
            drop(state);
            self.changed.notify_all();
        }
        let list = match list {
            Some(list) => list,
            None => JsonLines::start(w.take().ok_or_else(stopped)?, self.shape)?,
        };
        list.finish().map(|_| ())
    }
}

fn stopped() -> Error {
    Error::Internal("the threads building tools stopped before the end of the list".into())
}

#[cfg(test)]
mod tests {
    use crate::output::emit::{self, Format, Shape};

    /// Any number of threads writes the bytes of the whole list rendered at once.
    #[test]
    fn the_bytes_do_not_depend_on_the_threads() {
        let mut paths = serde_json::Map::new();
        for i in 0..300 {
            paths.insert(
                format!("/r{i}"),
                serde_json::json!({"post": {"operationId": format!("op{i}"),
                "requestBody": {"content": {"application/json": {"schema":
                    {"$ref": format!("#/components/schemas/{}", if i % 2 == 0 { "A%20B" } else { "A_B" })}}}},
                "responses": {"200": {"description": "ok"}}}}),
            );
        }
        let text = serde_json::json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"},
            "paths": paths, "components": {"schemas": {"A B": {"type": "string"}, "A_B": {"type": "integer"}}}})
        .to_string();
        let doc = crate::read::parse("t.json", text.as_bytes()).unwrap();
        let options = crate::Options::default();
        let whole = crate::convert_document(&doc, &options).unwrap();
        let expected = emit::render_as(&whole.tools, Shape::Mcp, Format::Json).unwrap();
        let dir = tempfile::tempdir().unwrap();
        for threads in [1, 2, 3, 4, 7] {
            let out = dir.path().join(format!("{threads}.json"));
            super::convert_to(&doc, &options, None, Shape::Mcp, Some(&out), Some(threads)).unwrap();
            assert!(
                std::fs::read(&out).unwrap() == expected.as_bytes(),
                "{threads}"
            );
        }
        // More threads asked for than a one-thread pool has: the writer builds alone.
        let one = rayon::ThreadPoolBuilder::new()
            .num_threads(1)
            .build()
            .unwrap();
        let out = dir.path().join("one.json");
        one.install(|| super::convert_to(&doc, &options, None, Shape::Mcp, Some(&out), Some(4)))
            .unwrap();
        assert!(std::fs::read(&out).unwrap() == expected.as_bytes());
        // Several conversions at once on a small pool, each writer a pool thread whose helper
        // waits its turn behind the other writers.
        let two = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        two.install(|| {
            use rayon::prelude::*;
            (0..4).into_par_iter().for_each(|i| {
                let out = dir.path().join(format!("many-{i}.json"));
                super::convert_to(&doc, &options, None, Shape::Mcp, Some(&out), Some(3)).unwrap();
                assert!(std::fs::read(&out).unwrap() == expected.as_bytes(), "{i}");
            });
        });
    }
}
