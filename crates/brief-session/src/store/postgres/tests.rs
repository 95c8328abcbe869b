//! The PostgreSQL backend's own helpers: the statement time-out read from the URL.

use super::{server_options, statement_timeout, STATEMENT_TIMEOUT};

#[test]
fn the_urls_statement_timeout_wins() {
    assert_eq!(statement_timeout(None), STATEMENT_TIMEOUT);
    assert_eq!(
        statement_timeout(Some("-c statement_timeout=120s")),
        std::time::Duration::from_secs(120)
    );
    assert_eq!(
        statement_timeout(Some("-c statement_timeout=2min -c x=1")),
        std::time::Duration::from_secs(120)
    );
    assert_eq!(
        statement_timeout(Some("-c statement_timeout=1500")),
        std::time::Duration::from_millis(1500)
    );
    assert_eq!(server_options(None), "-c statement_timeout=30000");
    assert_eq!(
        server_options(Some("-c search_path=x")),
        "-c statement_timeout=30000 -c search_path=x"
    );
}
