mod calls;
mod discovery;
mod output;
mod supervision;
mod support;
mod types;
