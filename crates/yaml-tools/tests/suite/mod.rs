mod command;
mod command_safety;
mod http;
mod http_safety;
mod loading;
mod sandbox;
mod support;
