//! MCP client and server (to be written).
