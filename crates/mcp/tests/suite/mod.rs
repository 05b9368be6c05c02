mod hostile;
mod served;
mod server;
mod skills_source;
mod source;
mod talking_source;
mod typed;
