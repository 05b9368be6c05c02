mod command;
mod http;
mod loading;
mod support;
