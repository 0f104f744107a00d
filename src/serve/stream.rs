//! Stream: reads a `text/event-stream` answer until it ends, stays silent for [`IDLE`], has
//! been read for [`CAP`] or reaches its byte limit, so an open stream never runs into the
//! request timeout.
//!
//! ureq's per-read timeout is fixed before the request is sent, and waiting for the headers
//! must not be held to it; so the agent's connections are wrapped ([`connector`]) and each read
//! made while this thread reads a stream ([`read`]) is cut short at the stream's limits. The
//! wrapped connections behave as ureq's own otherwise.

use std::cell::Cell;
use std::io::Read;
use std::time::{Duration, Instant};
use ureq::unversioned::transport::{
    Buffers, ConnectionDetails, Connector, DefaultConnector, NextTimeout, Transport,
};

/// How long a stream may stay silent before reading stops.
pub(crate) const IDLE: Duration = Duration::from_secs(2);
/// How long a stream is read at most: a call on a stream that stays open, sending or not, is
/// answered within 5 s.
pub(crate) const CAP: Duration = Duration::from_secs(4);

/// Why reading a stream stopped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Stopped {
    /// The API closed the stream.
    Ended,
    /// Nothing came for [`IDLE`].
    Idle,
    /// It was read for [`CAP`] (or up to the request timeout, if sooner).
    Cap,
    /// The byte limit was reached.
    Full,
    /// The connection failed after the headers; the message says how.
    Broken(String),
}

thread_local! {
    /// While this thread reads a stream: the longest wait for one read and when reading ends.
    static LIMIT: Cell<Option<(Duration, Instant)>> = const { Cell::new(None) };
}

/// Clears [`LIMIT`] when the read is over, however it ends.
struct Limited;

impl Limited {
    fn set(idle: Duration, until: Instant) -> Limited {
        LIMIT.with(|l| l.set(Some((idle, until))));
        Limited
    }
}

impl Drop for Limited {
    fn drop(&mut self) {
        LIMIT.with(|l| l.set(None));
    }
}

/// Read `reader` (a response body) until it ends, is silent for `idle`, has been read for
/// `cap`, or `limit` bytes have come (the rest is not read); `describe` turns a failure into a
/// message. The body must come through a [`connector`] connection on this thread.
pub(crate) fn read(
    reader: &mut dyn Read,
    limit: usize,
    idle: Duration,
    cap: Duration,
    describe: &dyn Fn(ureq::Error) -> String,
) -> (Vec<u8>, Stopped) {
    let until = Instant::now() + cap;
    let _limited = Limited::set(idle, until);
    let mut body = Vec::new();
    let mut chunk = vec![0; 16 * 1024];
    loop {
        if body.len() >= limit {
            body.truncate(limit);
            return (body, Stopped::Full);
        }
        match reader.read(&mut chunk) {
            Ok(0) => return (body, Stopped::Ended),
            Ok(n) => body.extend_from_slice(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => {
                let stopped = match ureq::Error::from(e) {
                    ureq::Error::Timeout(ureq::Timeout::PerRead) if Instant::now() < until => {
                        Stopped::Idle
                    }
                    ureq::Error::Timeout(_) => Stopped::Cap,
                    other => Stopped::Broken(describe(other)),
                };
                return (body, stopped);
            }
        }
    }
}

/// ureq's default connector, with every connection wrapped so that [`read`] can bound its reads.
pub(crate) fn connector() -> impl Connector<Out = Bounded> {
    DefaultConnector::new().chain(Wrap)
}

#[derive(Debug)]
struct Wrap;

impl Connector<Box<dyn Transport>> for Wrap {
    type Out = Bounded;

    fn connect(
        &self,
        _: &ConnectionDetails,
        chained: Option<Box<dyn Transport>>,
    ) -> Result<Option<Bounded>, ureq::Error> {
        Ok(chained.map(Bounded))
    }
}

/// A connection whose reads [`read`] can bound.
#[derive(Debug)]
pub(crate) struct Bounded(Box<dyn Transport>);

impl Transport for Bounded {
    fn buffers(&mut self) -> &mut dyn Buffers {
        self.0.buffers()
    }

    fn transmit_output(&mut self, amount: usize, timeout: NextTimeout) -> Result<(), ureq::Error> {
        self.0.transmit_output(amount, timeout)
    }

    fn await_input(&mut self, mut timeout: NextTimeout) -> Result<bool, ureq::Error> {
        if let Some((idle, until)) = LIMIT.with(Cell::get) {
            let wait = idle.min(until.saturating_duration_since(Instant::now()));
            let wait = ureq::unversioned::transport::time::Duration::from(wait);
            timeout.per_read = Some(timeout.per_read.map_or(wait, |p| p.min(wait)));
        }
        self.0.await_input(timeout)
    }

    fn is_open(&mut self) -> bool {
        self.0.is_open()
    }

    fn is_tls(&self) -> bool {
        self.0.is_tls()
    }
}
