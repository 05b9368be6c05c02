mod api;
mod clients;
mod conversations;
mod faults;
mod mcp;
mod questions;
mod support;
mod talking_tools;
