//! Hand-written expectations of the database formats' hardest cases
//! (issue 27), one module per format. They read databases made here
//! through the store, so they live in the store layer, not beside the
//! formats' pure rules (`formats::<format>`), which may not depend on it.

mod crush;
mod goose;
mod kilo;
mod zed;
