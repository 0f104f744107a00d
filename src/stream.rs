//! Stream: `convert` building and writing at once. Worker threads build tools in chunks (each
//! with its own schema converter, all sharing one registry of definitions) and render them as
//! JSON lines; the calling thread writes the chunks in document order as they arrive. The list
//! is never held whole, writing overlaps converting, and the bytes are those of
//! [`crate::emit::write_as`] with `--format json`, whatever the number of workers.

use crate::emit::{JsonLines, Shape, line_separator, write_line};
use crate::error::{Error, Result};
use crate::load::Clash;
use crate::output::{AtomicFile, to_stdout};
use crate::review::HintsFile;
use crate::{Options, Plan, Summary};
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc::{Receiver, SyncSender};
use std::sync::{Condvar, Mutex, OnceLock};

/// Tools a worker builds at a time. Each chunk costs a hand-over to the writer, and for a
/// document read lazily a path item whose operations two chunks share is parsed by both: 32
/// against 16 took Graph v1 from 196-210 to 188-200 ms (best of six, in turns), Kubernetes from
/// 23.4-25.2 to 21.8-22.7 ms (best of fifteen); 64 was no better.
const CHUNK: usize = 32;
/// Chunks that may be built ahead of the one being written, per worker.
const AHEAD: usize = 4;
/// Most worker threads by default (more than two gained nothing measurable on Microsoft Graph
/// beta with two cores).
const MAX_WORKERS: usize = 4;
/// Most worker threads asked for with `--threads`.
pub const MAX_THREADS: usize = 64;
/// Fewer tools than this are built by one worker: a second costs a thread and contention for
/// the shared definitions, for little to share out.
const MIN_PARALLEL_TOOLS: usize = 128;

/// A chunk of tools built and rendered as `--format json` lines, each after its separator, in
/// one buffer (or the first error).
struct Built {
    chunk: usize,
    tools: usize,
    text: Result<Vec<u8>>,
}

/// Buffers the writer is done with, for the workers to fill again: a chunk's text is hundreds
/// of kilobytes (Kubernetes: 740 KB for 32 tools), and a fresh buffer that size is a fresh
/// mapping whose pages the kernel zeroes, then unmaps when the writer frees it.
type Pool = Mutex<Vec<Vec<u8>>>;

/// Convert `doc` and write the tools as `--format json` in `shape` to `output` (standard output
/// when `None`), chunk by chunk as they are built. Nothing is written before the first tool, so
/// an early failure leaves standard output empty; a failure after some tools leaves a file
/// untouched but standard output truncated (with the error reported). `Ok(None)`: the reader
/// closed standard output (`| head`) before the end, which is not an error. `threads`: how many
/// threads build tools (`None`: see `plan_and_workers`); any number gives the same bytes.
pub fn convert_to(
    doc: &crate::load::Document,
    options: &Options,
    hints: Option<&HintsFile>,
    shape: Shape,
    output: Option<&Path>,
    threads: Option<usize>,
) -> Result<Option<Summary>> {
    convert_keeping(doc, options, hints, shape, output, threads).map(|(summary, _)| summary)
}

/// What a conversion leaves to free, handed back by [`convert_keeping`]: the definitions its
/// tools shared (a converted tree per definition and direction) and the operations it read.
/// Dropping it frees them, one allocation at a time on one thread after the last tool is
/// written (for Kubernetes, the definitions are 2% of the instructions of its conversion, and
/// the operations took about 2 ms of a run profiled with `perf`). A program that ends next can
/// skip that with `std::mem::forget`, as the command line does.
pub struct Remains<'d> {
    _plan: Plan<'d>,
}

/// [`convert_to`], handing what is left to free back to the caller instead of freeing it.
pub fn convert_keeping<'d>(
    doc: &'d crate::load::Document,
    options: &'d Options,
    hints: Option<&'d HintsFile>,
    shape: Shape,
    output: Option<&Path>,
    threads: Option<usize>,
) -> Result<(Option<Summary>, Remains<'d>)> {
    // Created first, so that an unwritable output fails before any work, whatever the document.
    let file = output.map(AtomicFile::create).transpose()?;
    let (plan, workers) = plan_and_workers(doc, options, hints, threads)?;
    let mut ended = false;
    let mut pump = |w: &mut dyn Write| -> Result<()> {
        build_and_write(&plan, &workers, shape, w)?;
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

/// The plan, and how many threads build its tools: `threads` if given, else one per core (at
/// most [`MAX_WORKERS`]) for a list of [`MIN_PARALLEL_TOOLS`] or more; only one when two
/// references in the document want the same `$defs` name (names then depend on the order of
/// conversion, so one converter must see every tool in order). Loading usually found out
/// already (a lazy document while reading its path items; one read whole from a file whose
/// references are all local: those a walk found compared while loading, see `bundle`);
/// otherwise it is left to the workers (see [`Workers`]).
fn plan_and_workers<'d>(
    doc: &'d crate::load::Document,
    options: &'d Options,
    hints: Option<&'d HintsFile>,
    threads: Option<usize>,
) -> Result<(Plan<'d>, Workers<'d>)> {
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let wanted = threads.map_or(cores.min(MAX_WORKERS), |n| n.min(MAX_THREADS));
    let plan = Plan::new(doc, options, hints)?;
    let short = threads.is_none() && plan.len() < MIN_PARALLEL_TOOLS;
    if wanted <= 1 || short {
        return Ok((plan, Workers::known(1)));
    }
    // Opening a lazy document read every path item, and saw their references on the way;
    // loading a file found its references (see `bundle`), and may have compared them.
    let known = match (&doc.lazy, &doc.clash) {
        (Some(paths), _) => Some(paths.clash()),
        (None, Some(Clash::Known(clash))) => Some(*clash),
        _ => None,
    };
    let workers = match known {
        Some(true) => Workers::known(1),
        Some(false) => Workers::known(wanted),
        None => Workers {
            count: wanted,
            check: Some(doc),
            clash: OnceLock::new(),
        },
    };
    Ok((plan, workers))
}

/// How many threads build the tools. When loading did not find out whether two references
/// want the same `$defs` name, the workers do (from the references the parse noted, else by
/// walking the tree; Kubernetes' noted ones take 0.4-0.7 ms on one thread): every worker but
/// the first works it out before it takes a chunk, and stops if they do; the first builds from
/// the first chunk on meanwhile, in order, and so builds every tool alone, as one worker would.
/// Worked out on a thread beside the plan instead, it took the second core while the plan's
/// reading of the operations wanted it: the reading's second thread then often started only
/// once the first had read everything (Kubernetes: its plan took 3.1-4.1 ms).
struct Workers<'d> {
    count: usize,
    /// The document to check, if not known.
    check: Option<&'d crate::load::Document>,
    /// Whether they do, once worked out.
    clash: OnceLock<bool>,
}

impl Workers<'_> {
    fn known(count: usize) -> Self {
        Workers {
            count,
            check: None,
            clash: OnceLock::new(),
        }
    }

    /// Whether worker `i` may build tools (working out the check if it must).
    fn may_build(&self, i: usize) -> bool {
        match self.check {
            Some(doc) if i > 0 => !*self.clash.get_or_init(|| match &doc.clash {
                Some(clash) => clash.get(),
                None => crate::schema::names_clash(&doc.root),
            }),
            _ => true,
        }
    }
}

/// Build the plan's tools on `workers` threads and write them in order to `w`.
fn build_and_write(
    plan: &Plan<'_>,
    workers: &Workers<'_>,
    shape: Shape,
    w: &mut dyn Write,
) -> Result<()> {
    let chunks = plan.len().div_ceil(CHUNK);
    let count = workers.count;
    let next = AtomicUsize::new(0);
    let window = Window::new(count * AHEAD);
    let (send, built) = std::sync::mpsc::sync_channel::<Built>(count * AHEAD);
    let pool = Pool::default();
    // The longest text of a chunk so far, on any worker: a buffer is given that much room
    // before a chunk is rendered into it, rather than grow (and copy what it holds) as it is.
    let longest = AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for i in 0..count {
            let shared = (&next, &window, &pool, &longest);
            let send = send.clone();
            scope.spawn(move || {
                if workers.may_build(i) {
                    work(plan, shape, chunks, shared, send);
                }
            });
        }
        drop(send);
        // However writing ends (with an error, or a panic), stop the workers, who may be
        // waiting for room ahead: the scope waits for them.
        let _stop = CloseOnDrop(&window);
        let written = write_in_order(chunks, &built, (&window, &pool), shape, w);
        drop(built);
        written
    })
}

/// Closes a [`Window`] when dropped.
struct CloseOnDrop<'w>(&'w Window);

impl Drop for CloseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// One worker: take the next chunk, build its tools and render them into a buffer from the
/// pool (so the writer only copies bytes, and each tool is freed by the thread that allocated it: freeing across threads
/// contends for the allocator's locks), send the lines. Stops at the end, at its first error, or
/// when the writer is gone.
fn work(
    plan: &Plan<'_>,
    shape: Shape,
    chunks: usize,
    (next, window, pool, longest): (&AtomicUsize, &Window, &Pool, &AtomicUsize),
    send: SyncSender<Built>,
) {
    // A panic here must not leave the writer waiting for this worker's chunk while the others
    // wait for room ahead: closing the window lets them stop, the channel closes, and the panic
    // comes out of the scope.
    struct OnPanic<'w>(&'w Window);
    impl Drop for OnPanic<'_> {
        fn drop(&mut self) {
            if std::thread::panicking() {
                self.0.close();
            }
        }
    }
    let _guard = OnPanic(window);
    let mut builder = plan.builder();
    loop {
        let chunk = next.fetch_add(1, Ordering::Relaxed);
        if chunk >= chunks || !window.wait_for(chunk) {
            return;
        }
        let (start, end) = (chunk * CHUNK, ((chunk + 1) * CHUNK).min(plan.len()));
        let text = pool.lock().ok().and_then(|mut p| p.pop());
        let mut text = with_room(text, longest.load(Ordering::Relaxed));
        let built = (start..end).try_for_each(|i| {
            let tool = plan.build(i, &mut builder)?;
            text.extend_from_slice(line_separator(i));
            write_line(&mut text, &tool, shape);
            Ok(())
        });
        longest.fetch_max(text.len(), Ordering::Relaxed);
        let failed = built.is_err();
        let text = built.map(|()| text);
        let tools = end - start;
        if send.send(Built { chunk, tools, text }).is_err() || failed {
            return;
        }
    }
}

/// An empty buffer with room for `room` bytes and a quarter more (a chunk longer than any
/// before grows it less often): `buffer` if it has that room, else a new one. A buffer too small
/// is not grown, which would copy every byte of its old room (the allocator does not know that
/// it is empty); Kubernetes' chunks take up to 740 KB.
fn with_room(buffer: Option<Vec<u8>>, room: usize) -> Vec<u8> {
    let room = room + room / 4;
    match buffer {
        Some(mut b) if b.capacity() >= room => {
            b.clear();
            b
        }
        _ => Vec::with_capacity(room),
    }
}

/// Write chunks in order as they arrive; the first failed chunk in order ends the list with its
/// error. Nothing is written before the first chunk, so an early failure writes nothing.
fn write_in_order(
    chunks: usize,
    built: &Receiver<Built>,
    (window, pool): (&Window, &Pool),
    shape: Shape,
    w: &mut dyn Write,
) -> Result<()> {
    let mut waiting: BTreeMap<usize, Built> = BTreeMap::new();
    let mut list: Option<JsonLines<&mut dyn Write>> = None;
    let mut w = Some(w);
    for chunk in 0..chunks {
        let b = loop {
            if let Some(b) = waiting.remove(&chunk) {
                break b;
            }
            // Every worker gone before this chunk: one of them failed on an earlier chunk,
            // which was reported, so this cannot happen; say so rather than hang.
            let b = built.recv().map_err(|_| stopped())?;
            waiting.insert(b.chunk, b);
        };
        let mut text = b.text?;
        if list.is_none() {
            // The list opens with its first tool, not before.
            list = Some(JsonLines::start(w.take().ok_or_else(stopped)?, shape)?);
        }
        list.as_mut()
            .ok_or_else(stopped)?
            .push_separated(&text, b.tools)?;
        text.clear();
        if let Ok(mut p) = pool.lock() {
            p.push(text);
        }
        window.advance();
    }
    match list {
        Some(list) => list.finish().map(|_| ()),
        // No tools: an empty list.
        None => JsonLines::start(w.take().ok_or_else(stopped)?, shape)?
            .finish()
            .map(|_| ()),
    }
}

fn stopped() -> Error {
    Error::Usage("the tool builders stopped before the end of the list".into())
}

/// How far ahead of the writer workers may build: chunk `i` may be built once fewer than
/// `ahead` chunks before it are still unwritten. Bounds the chunks held at once.
struct Window {
    written: Mutex<usize>,
    closed: AtomicBool,
    moved: Condvar,
    ahead: usize,
}

impl Window {
    fn new(ahead: usize) -> Self {
        Window {
            written: Mutex::new(0),
            closed: AtomicBool::new(false),
            moved: Condvar::new(),
            ahead,
        }
    }

    /// Wait until chunk `chunk` may be built; false if the writer closed the window.
    fn wait_for(&self, chunk: usize) -> bool {
        let Ok(mut written) = self.written.lock() else {
            return false;
        };
        while chunk >= *written + self.ahead {
            if self.closed.load(Ordering::Relaxed) {
                return false;
            }
            written = match self.moved.wait(written) {
                Ok(w) => w,
                Err(_) => return false,
            };
        }
        !self.closed.load(Ordering::Relaxed)
    }

    /// One more chunk written.
    fn advance(&self) {
        if let Ok(mut written) = self.written.lock() {
            *written += 1;
        }
        self.moved.notify_all();
    }

    /// The writer stopped: release every waiting worker.
    fn close(&self) {
        // Set under the lock, so that a worker between its check and its wait sees it.
        let _guard = self.written.lock();
        self.closed.store(true, Ordering::Relaxed);
        drop(_guard);
        self.moved.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use crate::emit::Shape;
    use serde_json::{Map, json};

    /// 300 operations: the first 16 reference `first`, the rest `A_B`. `A B` and `A_B` want the
    /// same `$defs` name; `C` (there when `first` is `C`) is an object whose property references
    /// `A B`.
    fn document(first: &str) -> String {
        let mut paths = Map::new();
        for i in 0..300 {
            let target = if i < 16 { first } else { "A_B" };
            paths.insert(
                format!("/r{i}"),
                json!({"post": {"operationId": format!("op{i}"),
                "requestBody": {"content": {"application/json": {"schema":
                    {"$ref": format!("#/components/schemas/{target}")}}}},
                "responses": {"200": {"description": "ok"}}}}),
            );
        }
        let mut schemas = json!({"A B": {"type": "string"}, "A_B": {"type": "integer"}});
        if first == "C" {
            schemas["C"] = json!({"type": "object", "properties": {"c": {"$ref": "#/components/schemas/A%20B"}}});
        }
        json!({"openapi": "3.0.3", "info": {"title": "t", "version": "1"}, "paths": paths,
            "components": {"schemas": schemas}})
        .to_string()
    }

    /// Names that depend on the order of conversion make one worker build every tool, whether
    /// the document is parsed whole, loaded from a file (where loading found the clash) or read
    /// with its path items as text (where the clash is found among the path items' references
    /// and the rest of the document's), and whether the clashing references are both in path
    /// items or one is in a definition.
    #[test]
    fn a_names_clash_means_one_worker() {
        let options = crate::Options::default();
        let dir = tempfile::tempdir().unwrap();
        for (first, clash) in [("A_B", false), ("A%20B", true), ("C", true)] {
            let text = document(first);
            let whole = crate::load::parse("t.json", text.as_bytes()).unwrap();
            let path = dir.path().join("t.json");
            std::fs::write(&path, &text).unwrap();
            let loaded = crate::load::load_file(&path).unwrap();
            assert_eq!(
                loaded.clash.as_ref().map(crate::load::Clash::get),
                Some(clash),
                "{first}"
            );
            let lazy = crate::lazy::open("t.json", None, text).unwrap();
            assert!(lazy.is_lazy());
            for doc in [&whole, &loaded, &lazy] {
                let (plan, workers) =
                    super::plan_and_workers(doc, &options, None, Some(4)).unwrap();
                assert_eq!(plan.len(), 300);
                let building = (0..workers.count).filter(|&i| workers.may_build(i)).count();
                assert_eq!(building, if clash { 1 } else { 4 }, "first: {first}");
                // Whoever works it out, the bytes are those of one thread.
                let write = |threads, name: &str| {
                    let out = dir.path().join(name);
                    super::convert_to(doc, &options, None, Shape::Mcp, Some(&out), threads)
                        .unwrap();
                    std::fs::read(out).unwrap()
                };
                assert!(write(Some(4), "four.json") == write(Some(1), "one.json"));
            }
        }
    }
}
