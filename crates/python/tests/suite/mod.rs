mod calls;
mod discovery;
mod hardening;
mod host_calls;
mod output;
mod supervision;
mod support;
mod types;
