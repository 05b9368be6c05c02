mod errors;
mod ollama;
mod openai;
mod usage;
