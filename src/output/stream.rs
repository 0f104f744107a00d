//! Stream: `convert --format json` building and writing at once. Tools are built in chunks on a
//! thread pool (each thread with its own schema converter, all sharing the plan's definitions)
//! and rendered as JSON lines; the calling thread writes the chunks in document order while the
//! pool builds the next ones. The list is never held whole, and the bytes are those of
//! [`super::emit::write_as`] with `--format json` whatever the number of threads.

use super::emit::{JsonLines, Shape, line_separator, write_line};
use super::file::{Output, to_stdout};
use crate::error::{Error, Result};
use crate::tool::reviewed::HintsFile;
use crate::tool::{Builder, Options, Plan, Summary};
use rayon::prelude::*;
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

/// Tools a thread builds at a time, as one piece of text.
const CHUNK: usize = 16;
/// Chunks the pool builds ahead of the writer, per thread.
const AHEAD: usize = 2;
/// Most threads by default (more than two gained nothing measurable with two cores).
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
/// threads build tools (`None`: one per core, at most [`MAX_WORKERS`], one for a short list).
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

/// What a conversion leaves to free, handed back by [`convert_keeping`]: the operations it read
/// and the definitions its tools shared. A program that ends next can skip freeing them with
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
    let threads = match threads {
        Some(n) => n.clamp(1, MAX_THREADS),
        None if plan.len() < MIN_PARALLEL_TOOLS => 1,
        None => std::thread::available_parallelism().map_or(1, |n| n.get().min(MAX_WORKERS)),
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

/// Build the plan's tools on a pool of `threads` threads, a batch of chunks at a time, and write
/// each batch in order on this thread while the pool builds the next.
fn build_and_write(plan: &Plan<'_>, threads: usize, shape: Shape, w: &mut dyn Write) -> Result<()> {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| Error::Internal(format!("cannot start the threads building tools: {e}")))?;
    // One builder per pool thread, so that each keeps what it has looked up.
    let builders: Vec<Mutex<Builder<'_>>> =
        (0..threads).map(|_| Mutex::new(plan.builder())).collect();
    // Buffers the writer has emptied, filled again: a buffer grown to a chunk's size is not
    // grown (copied) again, and its memory is not taken fresh from the system.
    let spare: Mutex<Vec<Vec<u8>>> = Mutex::new(Vec::new());
    let render = |chunk: usize| -> Result<Vec<u8>> {
        let at = rayon::current_thread_index().unwrap_or(0) % builders.len();
        let mut builder = builders[at].lock().unwrap_or_else(PoisonError::into_inner);
        let mut text = spare
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .pop()
            .unwrap_or_default();
        for i in chunk * CHUNK..((chunk + 1) * CHUNK).min(plan.len()) {
            let tool = plan.build(i, &mut builder)?;
            text.extend_from_slice(line_separator(i));
            write_line(&mut text, &tool, shape);
        }
        Ok(text)
    };
    let chunks = plan.len().div_ceil(CHUNK);
    let per_batch = threads * AHEAD;
    let (send, batches) = std::sync::mpsc::sync_channel::<Vec<Result<Vec<u8>>>>(1);
    std::thread::scope(|scope| {
        scope.spawn(move || {
            pool.install(|| {
                for start in (0..chunks).step_by(per_batch) {
                    let batch = (start..(start + per_batch).min(chunks))
                        .into_par_iter()
                        .map(render)
                        .collect();
                    // The writer stopped (an error, or standard output closed).
                    if send.send(batch).is_err() {
                        return;
                    }
                }
            })
        });
        // Opened at the first tool, so that an early failure writes nothing.
        let mut list: Option<JsonLines<&mut dyn Write>> = None;
        let mut w = Some(w);
        let mut written = 0;
        for batch in batches {
            for text in batch {
                let mut text = text?;
                let list = match &mut list {
                    Some(list) => list,
                    None => list.insert(JsonLines::start(w.take().ok_or_else(stopped)?, shape)?),
                };
                let tools = (plan.len() - written).min(CHUNK);
                list.push_separated(&text, tools)?;
                written += tools;
                text.clear();
                spare
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push(text);
            }
        }
        if written != plan.len() {
            return Err(stopped());
        }
        let list = match list {
            Some(list) => list,
            None => JsonLines::start(w.take().ok_or_else(stopped)?, shape)?,
        };
        list.finish().map(|_| ())
    })
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
    }
}
