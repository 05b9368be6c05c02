mod hostile;
mod protocol_2026;
mod served;
mod server;
mod skills_source;
mod source;
mod talking_source;
mod typed;
