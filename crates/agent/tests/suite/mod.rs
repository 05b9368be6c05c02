mod client_tools;
mod dispatcher;
mod limits;
mod native;
mod offered;
mod support;
mod talking;
