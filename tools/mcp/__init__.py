"""Tools of MCP servers: their configuration, sessions, schemas and answers."""
