//! A request given up on: an engine whose cancellation was asked for stops at the next stage
//! boundary with `EngineError::Cancelled`, answers nothing, and serves the next request
//! normally once given a fresh cancellation.

use brief::{ContextRequest, Format};
use brief_engine::{Cancel, EngineError};

use crate::index::{engine, project_copy, PAYMENTS};

#[test]
fn a_cancelled_request_stops_and_the_engine_serves_the_next() {
    let dir = project_copy(PAYMENTS);
    let mut engine = engine(dir.path());
    let request = ContextRequest {
        target: "CHECKOUT-01".into(),
        format: Format::Markdown,
        ..ContextRequest::default()
    };
    let cancel = Cancel::default();
    engine.set_cancel(Some(cancel.clone()));
    assert!(engine.context(&request).is_ok());
    cancel.cancel();
    assert!(matches!(
        engine.context(&request),
        Err(EngineError::Cancelled)
    ));
    assert!(matches!(
        engine.impact(&["POL-CHK-01".into()], &ContextRequest::default()),
        Err(EngineError::Cancelled)
    ));
    assert!(matches!(
        engine.search("payment", 5, None),
        Err(EngineError::Cancelled)
    ));
    engine.set_cancel(Some(Cancel::default()));
    assert!(engine.context(&request).is_ok());
    engine.set_cancel(None);
    assert!(engine.search("payment", 5, None).is_ok());
}
