//! The embedded model (to be written).
