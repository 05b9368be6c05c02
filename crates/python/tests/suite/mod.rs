mod calls;
mod discovery;
mod hardening;
mod output;
mod supervision;
mod support;
