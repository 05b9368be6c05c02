mod api;
mod conversations;
mod faults;
mod support;
