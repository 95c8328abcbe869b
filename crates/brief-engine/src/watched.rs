//! How a process that watches a project's files (`brief watch`, `brief serve`) vouches that
//! the index is current, so a short-lived process (one CLI command) need not stat every file.
//!
//! The watcher holds `.brief/cache/watch.lock` and listens on `.brief/cache/watch.sock`
//! (Unix; it vouches on Linux, where inotify's ordering is what the protocol relies on). A
//! client connects and sends [`ASK`]; the watcher says [`HEARD`] at once, then creates a
//! cookie file, `.brief/cache/watch-cookie-PID-N`, and waits until its own file events report
//! that cookie: the kernel queues one watcher's events in order, so by then it has seen every
//! change made before the client asked. It then refreshes the index when anything changed and
//! answers [`FRESH`]. No socket, a dead or stopped watcher, a slow one, or any other answer
//! leaves the client to check the files itself, as it does without a watcher. This is git's
//! fsmonitor cookie protocol, on brief's own index.

use std::path::Path;
use std::time::Duration;

/// What a client sends: the protocol name and version, then what it asks.
pub(crate) const ASK: &[u8] = b"brief-watch/2 fresh?\n";
/// The watcher's first line, at once: it is alive and working on the answer.
pub(crate) const HEARD: &[u8] = b"heard\n";
/// The watcher's answer when the index holds every change made before the question.
pub(crate) const FRESH: &[u8] = b"fresh\n";
/// The socket's name in `.brief/cache`.
pub const SOCKET: &str = "watch.sock";
/// The lock a watcher holds while it answers (one per index).
pub(crate) const LOCK: &str = "watch.lock";
/// The prefix of cookie files in `.brief/cache`.
pub const COOKIE_PREFIX: &str = "watch-cookie-";
/// How long a client waits to connect and for [`HEARD`]: a live watcher says it at once
/// (well under a millisecond; the margin is for a loaded machine), so a stopped one costs a
/// command no more than this.
pub(crate) const HEARD_WAIT: Duration = Duration::from_millis(500);
/// How long a client waits for its answer after [`HEARD`]. Longer than a no-change refresh of
/// a large project; a watcher that is rebuilding a changed index may take longer, and the
/// client then checks the files itself (and waits for the rebuild's lock like any reader).
pub(crate) const ANSWER_WAIT: Duration = Duration::from_secs(5);
/// How long a watcher waits to see its own cookie before it gives up on one question.
pub(crate) const COOKIE_WAIT: Duration = Duration::from_secs(2);

/// What asking the watcher gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Answer {
    /// A watcher vouched for the index: skip the check of every file.
    Fresh,
    /// No watcher answers for this index (the usual case).
    Absent,
    /// A watcher exists but did not vouch (why, and what to do, for a notice).
    Declined(String),
}

/// Asks the watcher of the index in `cache` (a `.brief/cache` folder), waiting at most
/// `wait` for the answer once the watcher has said it heard the question.
pub(crate) fn ask(cache: &Path, wait: Duration) -> Answer {
    #[cfg(unix)]
    {
        unix::ask_at(&cache.join(SOCKET), wait)
    }
    #[cfg(not(unix))]
    {
        let _ = (cache, wait);
        Answer::Absent
    }
}

/// The process id and number in a cookie file's name, when `name` is one.
pub(crate) fn cookie_of(name: &str) -> Option<(u32, u64)> {
    let (pid, number) = name.strip_prefix(COOKIE_PREFIX)?.split_once('-')?;
    Some((pid.parse().ok()?, number.parse().ok()?))
}

#[cfg(unix)]
pub use unix::{Answering, Cookies, Vouch, VouchError};

#[cfg(unix)]
mod unix {
    use std::io::{BufRead, BufReader, ErrorKind, Read, Write};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::{Duration, Instant};

    use brief_root::PrivateDir;

    use super::{
        cookie_of, Answer, ASK, COOKIE_PREFIX, COOKIE_WAIT, FRESH, HEARD, HEARD_WAIT, LOCK, SOCKET,
    };

    /// The longest socket path the platform takes (`sun_path`, less its terminating zero).
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const MAX_SOCKET_PATH: usize = 107;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const MAX_SOCKET_PATH: usize = 103;

    /// The most questions answered at once (each on its own thread).
    const MAX_QUESTIONS: usize = 64;

    pub(super) fn ask_at(socket: &Path, wait: Duration) -> Answer {
        use std::os::unix::fs::{FileTypeExt, MetadataExt};
        let Ok(found) = std::fs::symlink_metadata(socket) else {
            return Answer::Absent;
        };
        // Only a socket of the user who owns the cache folder speaks for the index.
        let owner = socket.parent().and_then(|p| std::fs::metadata(p).ok());
        if !found.file_type().is_socket() || owner.is_none_or(|o| o.uid() != found.uid()) {
            return Answer::Declined(format!(
                "{} is not a socket of the cache folder's owner; remove it",
                socket.display()
            ));
        }
        let mut stream = match connect(socket) {
            Ok(stream) => stream,
            // A socket a watcher that died left behind.
            Err(e) if matches!(e.kind(), ErrorKind::NotFound | ErrorKind::ConnectionRefused) => {
                return Answer::Absent
            }
            Err(e) => return Answer::Declined(format!("cannot reach it ({e})")),
        };
        let _ = stream.set_write_timeout(Some(HEARD_WAIT));
        if let Err(e) = stream.write_all(ASK) {
            return Answer::Declined(format!("cannot ask it ({e})"));
        }
        let mut reader = BufReader::new(stream.take(1024));
        let mut line = Vec::new();
        let timed_out =
            |e: &std::io::Error| matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut);
        let _ = reader
            .get_ref()
            .get_ref()
            .set_read_timeout(Some(HEARD_WAIT));
        match reader.read_until(b'\n', &mut line) {
            Ok(_) if line == HEARD => {}
            Ok(_) => return declined(&line),
            Err(e) if timed_out(&e) => return Answer::Declined(
                "it did not answer at once; is it stopped? Resume it (`kill -CONT`) or restart it"
                    .into(),
            ),
            Err(e) => return Answer::Declined(format!("reading its answer failed ({e})")),
        }
        line.clear();
        let _ = reader.get_ref().get_ref().set_read_timeout(Some(wait));
        // One line; the watcher may close the connection later than it answers.
        match reader.read_until(b'\n', &mut line) {
            Ok(_) if line == FRESH => Answer::Fresh,
            Ok(_) => declined(&line),
            Err(e) if timed_out(&e) => Answer::Declined(format!(
                "it did not answer within {:.1} s",
                wait.as_secs_f64()
            )),
            Err(e) => Answer::Declined(format!("reading its answer failed ({e})")),
        }
    }

    /// Connects, giving up after [`HEARD_WAIT`]: a stopped watcher whose queue of
    /// connections is full would otherwise keep `connect` waiting for ever.
    fn connect(socket: &Path) -> std::io::Result<UnixStream> {
        let (send, receive) = std::sync::mpsc::channel();
        let socket = socket.to_path_buf();
        std::thread::spawn(move || {
            let _ = send.send(UnixStream::connect(socket));
        });
        receive.recv_timeout(HEARD_WAIT).unwrap_or_else(|_| {
            Err(std::io::Error::new(
                ErrorKind::TimedOut,
                "it does not accept connections",
            ))
        })
    }

    /// A watcher's answer other than `fresh`, as said (it says why, and what to do).
    fn declined(line: &[u8]) -> Answer {
        let why: String = String::from_utf8_lossy(line)
            .trim()
            .chars()
            .take(400)
            .collect();
        if why.is_empty() {
            Answer::Declined("it closed the connection without an answer".into())
        } else {
            Answer::Declined(why)
        }
    }

    /// Why a watcher cannot answer for an index.
    #[derive(Debug, thiserror::Error)]
    pub enum VouchError {
        /// Another process (a `brief watch` or `brief serve`) already answers for it.
        #[error("another brief process (watch or serve) already answers for this project's index")]
        Taken,
        /// The socket's path is too long for the system (the path).
        #[error("the socket path {0} is longer than the system allows ({MAX_SOCKET_PATH} bytes); move the project to a shorter path")]
        PathTooLong(PathBuf),
        /// This system does not guarantee the order of file events.
        #[error("a watcher vouches for the index only on Linux, where the order of its file events is guaranteed")]
        Unsupported,
        /// Listening on the socket failed.
        #[error("cannot listen on {path}: {source}")]
        Io {
            /// The socket's path.
            path: PathBuf,
            /// The system's error.
            source: std::io::Error,
        },
    }

    /// Cookies the watcher has written and seen.
    #[derive(Debug, Default)]
    struct Ledger {
        written: u64,
        seen: u64,
    }

    /// What the file-event handler tells the [`Vouch`]: cookies it saw.
    #[derive(Debug, Clone)]
    pub struct Cookies {
        ledger: Arc<(Mutex<Ledger>, Condvar)>,
        /// The cache folder's real path, as the events name it.
        folder: Arc<PathBuf>,
        /// This process's id, in every cookie's name.
        pid: u32,
    }

    impl Cookies {
        /// The cookies of this process in `folder` (the real path of `.brief/cache`).
        pub fn new(folder: &Path) -> Cookies {
            Cookies {
                ledger: Arc::default(),
                folder: Arc::new(folder.to_path_buf()),
                pid: std::process::id(),
            }
        }

        /// The name of this process's cookie `number`.
        fn name(&self, number: u64) -> String {
            format!("{COOKIE_PREFIX}{}-{number}", self.pid)
        }

        /// Whether `path` is a cookie file in the cache folder (then it is no change to the
        /// project); notes it as seen when it is one of ours. Another process's cookies (a
        /// nested project's watcher, a file checked out under that name) prove nothing.
        pub fn observe(&self, path: &Path) -> bool {
            let Some((pid, number)) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(cookie_of)
            else {
                return false;
            };
            if path.parent() != Some(self.folder.as_path()) {
                return false;
            }
            if pid == self.pid {
                let (ledger, seen) = &*self.ledger;
                let mut ledger = ledger.lock().unwrap_or_else(|p| p.into_inner());
                // Numbers are given out after the question arrived and cookies are created in
                // that order, so seeing a later cookie proves the earlier events were seen.
                ledger.seen = ledger.seen.max(number);
                seen.notify_all();
            }
            true
        }

        /// Writes a new cookie and waits until [`observe`](Cookies::observe) reports it.
        fn round_trip(&self, cache: &PrivateDir, wait: Duration) -> bool {
            let (ledger, seen) = &*self.ledger;
            let number = {
                let mut ledger = ledger.lock().unwrap_or_else(|p| p.into_inner());
                ledger.written += 1;
                ledger.written
            };
            let name = self.name(number);
            if !matches!(cache.create_new(&name, b""), Ok(true)) {
                return false;
            }
            let deadline = Instant::now() + wait;
            let mut ledger = ledger.lock().unwrap_or_else(|p| p.into_inner());
            while ledger.seen < number {
                let left = deadline.saturating_duration_since(Instant::now());
                if left.is_zero() {
                    break;
                }
                ledger = seen
                    .wait_timeout(ledger, left)
                    .unwrap_or_else(|p| p.into_inner())
                    .0;
            }
            let arrived = ledger.seen >= number;
            drop(ledger);
            let _ = cache.remove(&name);
            arrived
        }
    }

    /// A watcher's claim to answer for one index: its lock, its socket and its cookies.
    pub struct Vouch {
        cache: Arc<PrivateDir>,
        listener: UnixListener,
        cookies: Cookies,
        /// The socket's device and inode: only this socket is ever removed.
        socket: Option<(u64, u64)>,
        _lock: std::fs::File,
    }

    impl Vouch {
        /// Claims the right to answer for the index in `cache`: takes its lock (so one
        /// process answers), removes a socket a dead watcher left, and listens.
        pub fn claim(cache: Arc<PrivateDir>) -> Result<Vouch, VouchError> {
            if !cfg!(any(target_os = "linux", target_os = "android")) {
                return Err(VouchError::Unsupported);
            }
            let socket = cache.real_path(SOCKET);
            let io = |source| VouchError::Io {
                path: cache.shown().join(SOCKET),
                source,
            };
            if socket.as_os_str().len() > MAX_SOCKET_PATH {
                return Err(VouchError::PathTooLong(socket));
            }
            let lock = cache.open_lock(LOCK).map_err(|e| match e {
                brief_root::OpenError::Io(e) => io(e),
                other => io(std::io::Error::other(other.to_string())),
            })?;
            match lock.try_lock() {
                Ok(()) => {}
                Err(std::fs::TryLockError::WouldBlock) => return Err(VouchError::Taken),
                Err(std::fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            // Holding the lock, any socket or cookie there is a dead watcher's (a cookie left
            // behind would make this watcher's cookie of the same name fail to appear).
            cache.remove(SOCKET).map_err(io)?;
            if let Ok(entries) = std::fs::read_dir(cache.real_path("")) {
                for entry in entries.flatten() {
                    if let Some(name) = entry.file_name().to_str() {
                        if cookie_of(name).is_some() {
                            let _ = cache.remove(name);
                        }
                    }
                }
            }
            let listener = UnixListener::bind(&socket).map_err(io)?;
            // Only the owner may ask (connecting needs write permission on the socket).
            {
                use std::os::unix::fs::PermissionsExt;
                std::fs::set_permissions(&socket, std::fs::Permissions::from_mode(0o600))
                    .map_err(io)?;
            }
            Ok(Vouch {
                cookies: Cookies::new(&cache.real_path("")),
                socket: cache.identity(SOCKET),
                cache,
                listener,
                _lock: lock,
            })
        }

        /// The handle the file-event handler reports cookies to.
        pub fn cookies(&self) -> Cookies {
            self.cookies.clone()
        }

        /// Whether the file events report a cookie at all (a watcher that does not see
        /// `.brief/cache` could never answer, and should not listen).
        pub fn sees_cookies(&self) -> bool {
            self.cookies.round_trip(&self.cache, COOKIE_WAIT)
        }

        /// Answers questions on a thread of its own until the process ends (the socket is
        /// removed when the returned guard is dropped). `current` brings the index up to date
        /// with every change seen so far, or says why it could not.
        pub fn answer(
            mut self,
            current: impl Fn() -> Result<(), String> + Send + Sync + 'static,
        ) -> Answering {
            let answering = Answering {
                cache: Arc::clone(&self.cache),
                socket: self.socket.take(),
            };
            let current = Arc::new(current);
            let busy = Arc::new(AtomicUsize::new(0));
            std::thread::spawn(move || {
                for stream in self.listener.incoming() {
                    let Ok(mut stream) = stream else {
                        // Out of file handles, most likely: wait rather than spin.
                        std::thread::sleep(Duration::from_millis(10));
                        continue;
                    };
                    let Some(slot) = Slot::take(&busy) else {
                        let _ = stream.write_all(b"it has too many questions at once\n");
                        continue;
                    };
                    // A thread per question: a client that connects and says nothing holds
                    // up no one else.
                    let (cookies, cache) = (self.cookies.clone(), Arc::clone(&self.cache));
                    let current = Arc::clone(&current);
                    std::thread::spawn(move || {
                        answer_one(stream, &cookies, &cache, &*current);
                        drop(slot);
                    });
                }
            });
            answering
        }
    }

    /// One of the [`MAX_QUESTIONS`] answering threads, given back when dropped (also when
    /// the answer panics).
    struct Slot(Arc<AtomicUsize>);

    impl Slot {
        fn take(busy: &Arc<AtomicUsize>) -> Option<Slot> {
            if busy.fetch_add(1, Ordering::SeqCst) >= MAX_QUESTIONS {
                busy.fetch_sub(1, Ordering::SeqCst);
                return None;
            }
            Some(Slot(Arc::clone(busy)))
        }
    }

    impl Drop for Slot {
        fn drop(&mut self) {
            self.0.fetch_sub(1, Ordering::SeqCst);
        }
    }

    /// Reads one question and answers it.
    fn answer_one(
        mut stream: UnixStream,
        cookies: &Cookies,
        cache: &PrivateDir,
        current: &dyn Fn() -> Result<(), String>,
    ) {
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let _ = stream.set_write_timeout(Some(Duration::from_secs(1)));
        let mut question = [0u8; ASK.len()];
        if stream.read_exact(&mut question).is_err() || question != ASK {
            let _ = stream.write_all(
                b"it speaks another version of the protocol; run the same brief for both\n",
            );
            return;
        }
        if stream.write_all(HEARD).is_err() {
            return;
        }
        let answer = if !cookies.round_trip(cache, COOKIE_WAIT) {
            "its file events lag behind; restart it if this lasts\n".to_string()
        } else {
            match current() {
                Ok(()) => String::from_utf8_lossy(FRESH).into_owned(),
                Err(why) => format!("{why}\n"),
            }
        };
        let _ = stream.write_all(answer.as_bytes());
    }

    impl Drop for Vouch {
        fn drop(&mut self) {
            remove_if_ours(&self.cache, self.socket);
        }
    }

    /// Removes the socket when it is still the one this watcher bound (after `.brief/cache`
    /// was deleted, another watcher may have bound a new one there).
    fn remove_if_ours(cache: &PrivateDir, socket: Option<(u64, u64)>) {
        if socket.is_some() && cache.identity(SOCKET) == socket {
            let _ = cache.remove(SOCKET);
        }
    }

    /// A [`Vouch`] answering; dropping it removes the socket, so clients stop asking.
    #[must_use = "dropping it stops clients from asking"]
    pub struct Answering {
        cache: Arc<PrivateDir>,
        socket: Option<(u64, u64)>,
    }

    impl Answering {
        /// Whether the socket clients connect to is still this watcher's (not when
        /// `.brief/cache` was removed, or another watcher bound a new one there).
        pub fn still_listening(&self) -> bool {
            self.socket.is_some() && self.cache.identity(SOCKET) == self.socket
        }
    }

    impl Drop for Answering {
        fn drop(&mut self) {
            remove_if_ours(&self.cache, self.socket);
        }
    }

    #[cfg(test)]
    mod tests {
        use super::super::{ask, ANSWER_WAIT};
        use super::*;
        use std::sync::atomic::{AtomicUsize, Ordering};

        fn cache_of(dir: &Path) -> Arc<PrivateDir> {
            let root = brief_root::Root::open(dir).unwrap();
            Arc::new(root.private_dir(Path::new(".brief/cache")).unwrap())
        }

        #[test]
        fn no_watcher_is_absent() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Absent);
        }

        #[test]
        fn a_dead_watchers_socket_is_absent_and_is_replaced() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            // A socket nobody listens on any more, as a killed watcher leaves it.
            drop(UnixListener::bind(cache.real_path(SOCKET)).unwrap());
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Absent);
            let vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
            let cookies = vouch.cookies();
            // Cookies seen by hand, as a file watcher would report them.
            let seer = seen_by_hand(&cache, cookies, 1);
            let _answering = vouch.answer(|| Ok(()));
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Fresh);
            seer.join().unwrap();
        }

        /// Reports `count` cookies as they appear, on a thread of its own, standing in for
        /// the file events.
        fn seen_by_hand(
            cache: &Arc<PrivateDir>,
            cookies: Cookies,
            count: usize,
        ) -> std::thread::JoinHandle<()> {
            let cache = Arc::clone(cache);
            std::thread::spawn(move || {
                let mut reported = 0;
                let deadline = Instant::now() + Duration::from_secs(20);
                let mut last = 0;
                while reported < count && Instant::now() < deadline {
                    let next = last + 1;
                    let name = cookies.name(next);
                    if cache.entry(&name).is_some() {
                        assert!(cookies.observe(&cache.real_path(&name)));
                        last = next;
                        reported += 1;
                    } else {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                }
            })
        }

        #[test]
        fn cookies_a_killed_watcher_left_are_cleared() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            let names: Vec<String> = (1..=3)
                .map(|n| format!("{COOKIE_PREFIX}{}-{n}", std::process::id()))
                .collect();
            for name in &names {
                assert!(cache.create_new(name, b"").unwrap());
            }
            let vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
            for name in &names {
                assert_eq!(cache.entry(name), None);
            }
            // Its own first cookie can be written again, and is seen.
            let cookies = vouch.cookies();
            let seer = seen_by_hand(&cache, cookies, 1);
            assert!(vouch.sees_cookies());
            seer.join().unwrap();
        }

        #[test]
        fn a_second_watcher_is_refused() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            let _first = Vouch::claim(Arc::clone(&cache)).unwrap();
            assert!(matches!(
                Vouch::claim(Arc::clone(&cache)),
                Err(VouchError::Taken)
            ));
        }

        #[test]
        fn the_index_is_brought_current_before_fresh_is_said() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            let vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
            let cookies = vouch.cookies();
            let refreshed = Arc::new(AtomicUsize::new(0));
            let counter = Arc::clone(&refreshed);
            let _answering = vouch.answer(move || {
                counter.fetch_add(1, Ordering::SeqCst);
                Ok(())
            });
            let seer = seen_by_hand(&cache, cookies, 2);
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Fresh);
            assert_eq!(refreshed.load(Ordering::SeqCst), 1);
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Fresh);
            assert_eq!(refreshed.load(Ordering::SeqCst), 2);
            seer.join().unwrap();
        }

        #[test]
        fn a_failed_refresh_or_an_unseen_cookie_is_declined() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            let vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
            let cookies = vouch.cookies();
            let _answering = vouch.answer(|| Err("the disk is full".into()));
            // Nobody reports cookies: the watcher cannot vouch.
            let started = Instant::now();
            match ask(&cache.real_path(""), ANSWER_WAIT) {
                Answer::Declined(why) => assert!(why.contains("lag"), "{why}"),
                other => panic!("{other:?}"),
            }
            assert!(started.elapsed() >= COOKIE_WAIT);
            let seer = std::thread::spawn({
                let cache = Arc::clone(&cache);
                move || {
                    // The first cookie timed out; the second is the one to report.
                    let name = cookies.name(2);
                    let deadline = Instant::now() + Duration::from_secs(20);
                    while cache.entry(&name).is_none() && Instant::now() < deadline {
                        std::thread::sleep(Duration::from_millis(1));
                    }
                    cookies.observe(&cache.real_path(&name))
                }
            });
            match ask(&cache.real_path(""), ANSWER_WAIT) {
                Answer::Declined(why) => assert!(why.contains("the disk is full"), "{why}"),
                other => panic!("{other:?}"),
            }
            assert!(seer.join().unwrap());
        }

        #[test]
        fn a_client_that_says_nothing_holds_up_no_one() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            let vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
            let cookies = vouch.cookies();
            let _answering = vouch.answer(|| Ok(()));
            let _silent = UnixStream::connect(cache.real_path(SOCKET)).unwrap();
            let seer = seen_by_hand(&cache, cookies, 1);
            // Sequential answering would be stuck on the silent client for a second, longer
            // than a client waits to hear back.
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Fresh);
            seer.join().unwrap();
        }

        #[test]
        fn a_watcher_that_never_answers_is_declined_in_time() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            // Listens, but never reads or answers (a stopped process): the command waits
            // only for the first line, not for the whole answer.
            let _listener = UnixListener::bind(cache.real_path(SOCKET)).unwrap();
            let started = Instant::now();
            match ask(&cache.real_path(""), ANSWER_WAIT) {
                Answer::Declined(why) => assert!(why.contains("kill -CONT"), "{why}"),
                other => panic!("{other:?}"),
            }
            assert!(started.elapsed() < ANSWER_WAIT);
        }

        #[test]
        fn a_file_in_place_of_the_socket_is_not_asked() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            std::fs::write(cache.real_path(SOCKET), "fresh\n").unwrap();
            match ask(&cache.real_path(""), ANSWER_WAIT) {
                Answer::Declined(why) => assert!(why.contains("not a socket"), "{why}"),
                other => panic!("{other:?}"),
            }
        }

        #[test]
        fn only_this_watchers_cookies_in_its_folder_count() {
            let pid = std::process::id();
            assert_eq!(
                cookie_of(&format!("watch-cookie-{pid}-17")),
                Some((pid, 17))
            );
            assert_eq!(cookie_of("watch-cookie-17"), None);
            assert_eq!(cookie_of("watch.sock"), None);
            let cookies = Cookies::new(Path::new("/p/.brief/cache"));
            assert!(!cookies.observe(Path::new("/p/docs/watch-cookie.md")));
            // A cookie name elsewhere (a nested project, a checked-out file) is a file.
            let far = format!("/p/sub/.brief/cache/watch-cookie-{pid}-{}", u64::MAX);
            assert!(!cookies.observe(Path::new(&far)));
            // Another watcher's cookie in this folder is no change, and proves nothing.
            let other = format!("/p/.brief/cache/watch-cookie-{}-{}", pid + 1, u64::MAX);
            assert!(cookies.observe(Path::new(&other)));
            assert_eq!(cookies.ledger.0.lock().unwrap().seen, 0);
            let ours = format!("/p/.brief/cache/watch-cookie-{pid}-3");
            assert!(cookies.observe(Path::new(&ours)));
            assert_eq!(cookies.ledger.0.lock().unwrap().seen, 3);
        }
    }
}
