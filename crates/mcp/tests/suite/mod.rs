mod hostile;
mod served;
mod server;
mod source;
mod talking_source;
mod typed;
