mod hostile;
mod server;
mod source;
