mod errors;
mod ollama;
mod openai;
