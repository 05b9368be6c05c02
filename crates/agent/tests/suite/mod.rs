mod client_tools;
mod dispatcher;
mod limits;
mod native;
mod offered;
mod skills;
mod support;
mod talking;
