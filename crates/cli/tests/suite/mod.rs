mod ask;
mod call;
mod chat;
mod command;
mod init;
mod mcp;
mod settings;
mod tools;
