mod server;
mod source;
