//! PyO3 bindings (filled in below).
