//! LLM providers (to be written).
