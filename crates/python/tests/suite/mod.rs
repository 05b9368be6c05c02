mod calls;
mod discovery;
mod host_calls;
mod output;
mod supervision;
mod support;
mod types;
