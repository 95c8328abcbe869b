//! How a process that watches a project's files (`brief watch`, `brief serve`) vouches that
//! the index is current, so a short-lived process (one CLI command) need not stat every file.
//!
//! The watcher holds `.brief/cache/watch.lock` and listens on `.brief/cache/watch.sock`
//! (Unix only). A client connects and sends [`ASK`]. The watcher creates a cookie file,
//! `.brief/cache/watch-cookie-N`, and waits until its own file events report that cookie:
//! the kernel queues one watcher's events in order, so by then it has seen every change made
//! before the client asked. It then refreshes the index when anything changed and answers
//! [`FRESH`]. No socket, a dead watcher, a slow one, or any other answer leaves the client to
//! check the files itself, as it does without a watcher. This is git's fsmonitor cookie
//! protocol, on brief's own index.

use std::path::Path;
use std::time::Duration;

/// What a client sends: the protocol name and version, then what it asks.
pub const ASK: &[u8] = b"brief-watch/1 fresh?\n";
/// The watcher's answer when the index holds every change made before the question.
pub const FRESH: &[u8] = b"fresh\n";
/// The socket's name in `.brief/cache`.
pub const SOCKET: &str = "watch.sock";
/// The lock a watcher holds while it answers (one per index).
pub const LOCK: &str = "watch.lock";
/// The prefix of cookie files in `.brief/cache`.
pub const COOKIE_PREFIX: &str = "watch-cookie-";
/// How long a client waits for its answer. Longer than a no-change refresh of a large
/// project; a watcher that is rebuilding a changed index may take longer, and the client
/// then checks the files itself (and waits for the rebuild's lock like any reader).
pub const ANSWER_WAIT: Duration = Duration::from_secs(5);
/// How long a watcher waits to see its own cookie before it gives up on one question.
pub const COOKIE_WAIT: Duration = Duration::from_secs(2);

/// What asking the watcher gave.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// A watcher vouched for the index: skip the check of every file.
    Fresh,
    /// No watcher answers for this index (the usual case).
    Absent,
    /// A watcher exists but did not vouch (why, for a notice).
    Declined(String),
}

/// Asks the watcher of the index in `cache` (a `.brief/cache` folder), waiting at most
/// `wait` for the answer.
pub fn ask(cache: &Path, wait: Duration) -> Answer {
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

/// The number in a cookie file's name, when `name` is one.
pub fn cookie_number(name: &str) -> Option<u64> {
    name.strip_prefix(COOKIE_PREFIX)?.parse().ok()
}

#[cfg(unix)]
pub use unix::{Answering, Cookies, Vouch, VouchError};

#[cfg(unix)]
mod unix {
    use std::io::{BufRead, ErrorKind, Read, Write};
    use std::os::unix::net::{UnixListener, UnixStream};
    use std::path::{Path, PathBuf};
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::{Arc, Condvar, Mutex};
    use std::time::{Duration, Instant};

    use brief_root::PrivateDir;

    use super::{cookie_number, Answer, ASK, COOKIE_PREFIX, COOKIE_WAIT, FRESH, LOCK, SOCKET};

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
                "{} is not a socket of the cache folder's owner",
                socket.display()
            ));
        }
        let mut stream = match UnixStream::connect(socket) {
            Ok(stream) => stream,
            // No socket, or one a watcher that died left behind.
            Err(e)
                if matches!(
                    e.kind(),
                    ErrorKind::NotFound | ErrorKind::ConnectionRefused | ErrorKind::InvalidInput
                ) =>
            {
                return Answer::Absent
            }
            Err(e) => return Answer::Declined(format!("cannot reach it ({e})")),
        };
        let _ = stream.set_read_timeout(Some(wait));
        let _ = stream.set_write_timeout(Some(wait));
        if let Err(e) = stream.write_all(ASK) {
            return Answer::Declined(format!("cannot ask it ({e})"));
        }
        // One line; the watcher may close the connection later than it answers.
        let mut answer = Vec::new();
        match std::io::BufReader::new(stream.take(64)).read_until(b'\n', &mut answer) {
            Ok(_) if answer == FRESH => Answer::Fresh,
            Ok(_) => Answer::Declined(
                String::from_utf8_lossy(&answer)
                    .trim()
                    .chars()
                    .take(60)
                    .collect::<String>(),
            )
            .non_empty_or("it closed the connection without an answer"),
            Err(e) if matches!(e.kind(), ErrorKind::WouldBlock | ErrorKind::TimedOut) => {
                Answer::Declined(format!(
                    "it did not answer within {:.1} s",
                    wait.as_secs_f64()
                ))
            }
            Err(e) => Answer::Declined(format!("reading its answer failed ({e})")),
        }
    }

    impl Answer {
        fn non_empty_or(self, instead: &str) -> Answer {
            match self {
                Answer::Declined(why) if why.is_empty() => Answer::Declined(instead.into()),
                other => other,
            }
        }
    }

    /// Why a watcher cannot answer for an index.
    #[derive(Debug, thiserror::Error)]
    pub enum VouchError {
        /// Another process (a `brief watch` or `brief serve`) already answers for it.
        #[error("another brief process (watch or serve) already answers for this project's index")]
        Taken,
        #[error("the socket path {0} is longer than the system allows ({MAX_SOCKET_PATH} bytes)")]
        PathTooLong(PathBuf),
        #[error("cannot listen on {path}: {source}")]
        Io {
            path: PathBuf,
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
    #[derive(Debug, Clone, Default)]
    pub struct Cookies(Arc<(Mutex<Ledger>, Condvar)>);

    impl Cookies {
        /// Whether `path` is one of our cookies (then it is no change to the project); notes
        /// it as seen.
        pub fn observe(&self, path: &Path) -> bool {
            let in_cache = path.parent().is_some_and(|p| p.ends_with(".brief/cache"));
            let Some(number) = path
                .file_name()
                .and_then(|n| n.to_str())
                .and_then(cookie_number)
                .filter(|_| in_cache)
            else {
                return false;
            };
            let (ledger, seen) = &*self.0;
            let mut ledger = ledger.lock().unwrap_or_else(|p| p.into_inner());
            ledger.seen = ledger.seen.max(number);
            seen.notify_all();
            true
        }

        /// Writes a new cookie and waits until [`observe`](Cookies::observe) reports it.
        fn round_trip(&self, cache: &PrivateDir, wait: Duration) -> bool {
            let (ledger, seen) = &*self.0;
            let number = {
                let mut ledger = ledger.lock().unwrap_or_else(|p| p.into_inner());
                ledger.written += 1;
                ledger.written
            };
            let name = format!("{COOKIE_PREFIX}{number}");
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
        socket: PathBuf,
        _lock: std::fs::File,
    }

    impl Vouch {
        /// Claims the right to answer for the index in `cache`: takes its lock (so one
        /// process answers), removes a socket a dead watcher left, and listens.
        pub fn claim(cache: Arc<PrivateDir>) -> Result<Vouch, VouchError> {
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
            // behind would make this watcher's cookie of the same number fail to appear).
            cache.remove(SOCKET).map_err(io)?;
            if let Ok(entries) = std::fs::read_dir(cache.real_path("")) {
                for entry in entries.flatten() {
                    if let Some(name) = entry.file_name().to_str() {
                        if cookie_number(name).is_some() {
                            let _ = cache.remove(name);
                        }
                    }
                }
            }
            let listener = UnixListener::bind(&socket).map_err(io)?;
            Ok(Vouch {
                cache,
                listener,
                cookies: Cookies(Arc::default()),
                socket,
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
            let answering = Answering(std::mem::take(&mut self.socket));
            let current = Arc::new(current);
            let busy = Arc::new(AtomicUsize::new(0));
            std::thread::spawn(move || {
                for stream in self.listener.incoming() {
                    let Ok(mut stream) = stream else { continue };
                    if busy.fetch_add(1, Ordering::SeqCst) >= MAX_QUESTIONS {
                        busy.fetch_sub(1, Ordering::SeqCst);
                        let _ = stream.write_all(b"too many questions at once\n");
                        continue;
                    }
                    // A thread per question: a client that connects and says nothing holds
                    // up no one else.
                    let (cookies, cache) = (self.cookies.clone(), Arc::clone(&self.cache));
                    let (current, busy) = (Arc::clone(&current), Arc::clone(&busy));
                    std::thread::spawn(move || {
                        answer_one(stream, &cookies, &cache, &*current);
                        busy.fetch_sub(1, Ordering::SeqCst);
                    });
                }
            });
            answering
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
            let _ = stream.write_all(b"not a question this watcher knows\n");
            return;
        }
        let answer = if !cookies.round_trip(cache, COOKIE_WAIT) {
            "its file events lag behind\n".to_string()
        } else {
            match current() {
                Ok(()) => String::from_utf8_lossy(FRESH).into_owned(),
                Err(why) => format!("its refresh failed: {why}\n"),
            }
        };
        let _ = stream.write_all(answer.as_bytes());
    }

    impl Drop for Vouch {
        fn drop(&mut self) {
            if !self.socket.as_os_str().is_empty() {
                let _ = std::fs::remove_file(&self.socket);
            }
        }
    }

    /// A [`Vouch`] answering; dropping it removes the socket, so clients stop asking.
    #[must_use = "dropping it stops clients from asking"]
    pub struct Answering(PathBuf);

    impl Drop for Answering {
        fn drop(&mut self) {
            let _ = std::fs::remove_file(&self.0);
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
            let seer = std::thread::spawn({
                let cache = Arc::clone(&cache);
                move || seen_by_hand(&cache, &cookies, 1)
            });
            let _answering = vouch.answer(|| Ok(()));
            assert_eq!(ask(&cache.real_path(""), ANSWER_WAIT), Answer::Fresh);
            seer.join().unwrap();
        }

        /// Reports `count` cookies as they appear, standing in for the file events.
        fn seen_by_hand(cache: &PrivateDir, cookies: &Cookies, count: usize) {
            let mut reported = 0;
            let deadline = Instant::now() + Duration::from_secs(20);
            let mut last = 0;
            while reported < count && Instant::now() < deadline {
                let next = last + 1;
                let name = format!("{COOKIE_PREFIX}{next}");
                if cache.entry(&name).is_some() {
                    assert!(cookies.observe(&cache.real_path(&name)));
                    last = next;
                    reported += 1;
                } else {
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }

        #[test]
        fn cookies_a_killed_watcher_left_are_cleared() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            for n in 1..=3 {
                assert!(cache
                    .create_new(&format!("{COOKIE_PREFIX}{n}"), b"")
                    .unwrap());
            }
            let _vouch = Vouch::claim(Arc::clone(&cache)).unwrap();
            for n in 1..=3 {
                assert_eq!(cache.entry(&format!("{COOKIE_PREFIX}{n}")), None);
            }
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
            let seer = std::thread::spawn({
                let cache = Arc::clone(&cache);
                move || seen_by_hand(&cache, &cookies, 2)
            });
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
                    let name = format!("{COOKIE_PREFIX}2");
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
            let seer = std::thread::spawn({
                let cache = Arc::clone(&cache);
                move || seen_by_hand(&cache, &cookies, 1)
            });
            // Answered while the silent client still holds its connection (its read would
            // time out only after a second).
            assert_eq!(
                ask(&cache.real_path(""), Duration::from_millis(900)),
                Answer::Fresh
            );
            seer.join().unwrap();
        }

        #[test]
        fn a_watcher_that_never_answers_is_declined_in_time() {
            let dir = tempfile::tempdir().unwrap();
            let cache = cache_of(dir.path());
            // Listens, but never reads or answers (a stopped process).
            let _listener = UnixListener::bind(cache.real_path(SOCKET)).unwrap();
            let started = Instant::now();
            match ask(&cache.real_path(""), Duration::from_millis(200)) {
                Answer::Declined(why) => assert!(why.contains("did not answer"), "{why}"),
                other => panic!("{other:?}"),
            }
            assert!(started.elapsed() < Duration::from_secs(5));
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
        fn only_cookie_names_are_cookies() {
            assert_eq!(cookie_number("watch-cookie-17"), Some(17));
            assert_eq!(cookie_number("watch-cookie-"), None);
            assert_eq!(cookie_number("watch.sock"), None);
            let cookies = Cookies(Arc::default());
            assert!(!cookies.observe(Path::new("/p/docs/watch-cookie.md")));
            assert!(!cookies.observe(Path::new("/p/docs/watch-cookie-3")));
            assert!(cookies.observe(Path::new("/p/.brief/cache/watch-cookie-3")));
        }
    }
}
