mod client_tools;
mod dispatcher;
mod limits;
mod native;
mod support;
mod talking;
