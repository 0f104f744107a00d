//! Stream: `convert` building and writing at once, on two threads — one builds tools in document
//! order, the other writes each and hands it back to be freed — so the list is never held whole
//! and writing overlaps converting; the bytes are those of [`crate::emit::write_as`] with
//! `--format json`.

use crate::emit::{JsonLines, Shape};
use crate::error::{Error, Result};
use crate::output::{AtomicFile, to_stdout};
use crate::review::HintsFile;
use crate::{Options, Summary, Tool};
use std::io::Write;
use std::path::Path;

/// What the converting thread sends the writing one.
enum Message {
    Tool(Box<Tool>),
    /// Every tool was sent: close the list. Without it (the conversion failed) nothing is kept.
    Done,
}

/// Why the writing thread stopped before `Done`: the conversion failed, and reports why itself.
fn aborted() -> Error {
    Error::Usage("conversion failed before the end of the list".into())
}

/// Convert `doc` and write the tools as `--format json` in `shape` to `output` (standard output
/// when `None`), tool by tool as they are built. Nothing is written before the first tool, so an
/// early failure leaves standard output empty; a failure after some tools leaves a file untouched
/// but standard output truncated (with the error reported). `Ok(None)`: the reader closed
/// standard output (`| head`) before the end, which is not an error.
pub fn convert_to(
    doc: &crate::load::Document,
    options: &Options,
    hints: Option<&HintsFile>,
    shape: Shape,
    output: Option<&Path>,
) -> Result<Option<Summary>> {
    // Created here, so that an unwritable output fails before any work, whatever the document.
    let file = output.map(AtomicFile::create).transpose()?;
    let (send, receive) = std::sync::mpsc::sync_channel::<Message>(64);
    // Written tools go back to be freed by the thread that allocated them: freeing across threads
    // contends for the allocator's locks (Microsoft Graph beta: 3.6 s when the writing thread
    // frees them, 2.5 s this way).
    let (recycle, written_tools) = std::sync::mpsc::channel::<Box<Tool>>();
    std::thread::scope(|scope| {
        let writer = scope.spawn(move || {
            let pump = |w: &mut dyn Write| -> Result<()> {
                let mut next = receive.recv().map_err(|_| aborted())?;
                // The list opens with its first tool (or its end), not before.
                let mut lines = JsonLines::start(w, shape)?;
                loop {
                    match next {
                        Message::Tool(tool) => {
                            lines.push(&tool)?;
                            // The receiving end lives until this thread is joined.
                            let _ = recycle.send(tool);
                        }
                        Message::Done => return lines.finish().map(|_| ()),
                    }
                    next = receive.recv().map_err(|_| aborted())?;
                }
            };
            match file {
                Some(file) => file.fill(pump),
                None => to_stdout(pump),
            }
        });
        let mut writer_gone = false;
        let converted = crate::convert_each(doc, options, hints, |tool| {
            written_tools.try_iter().for_each(drop);
            send.send(Message::Tool(Box::new(tool))).map_err(|_| {
                writer_gone = true;
                Error::Usage("output closed".into())
            })
        });
        if converted.is_ok() {
            writer_gone |= send.send(Message::Done).is_err();
        }
        drop(send);
        let written = match writer.join() {
            Ok(written) => written,
            Err(panic) => std::panic::resume_unwind(panic),
        };
        match (converted, written) {
            // The writer stopped first: its error (or a closed pipe, which is no error) explains.
            (_, Err(e)) if writer_gone => Err(e),
            (Err(_), Ok(())) if writer_gone => Ok(None),
            (Err(e), _) => Err(e),
            (Ok(_), Err(e)) => Err(e),
            (Ok(summary), Ok(())) => Ok(Some(summary)),
        }
    })
}
