mod api;
mod conversations;
mod faults;
mod mcp;
mod support;
