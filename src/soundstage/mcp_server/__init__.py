"""The Model Context Protocol over the same accounts, services and credits: `soundstage mcp`
(stdio) and /mcp (streamable HTTP)."""
