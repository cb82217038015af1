package seat

// An mcp account is a local MCP server (mcp-servers.json): a speaker in the
// room, never launched as a seat.
var mcpKind = kindDef{}
