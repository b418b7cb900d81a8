/**
 * The blocks lane owners paste into their MCP client, one format per client, each in the shape
 * that client documents for a remote Streamable HTTP server with a bearer header. Pure.
 */
export const CONFIG_FORMATS = ['json', 'claude', 'codex', 'vscode', 'cursor', 'windsurf', 'gemini'] as const;
export type ConfigFormat = (typeof CONFIG_FORMATS)[number];

/** Where each client reads the block from (printed above it). */
export const CONFIG_HOME: Record<ConfigFormat, string> = {
  json: 'any client with an "mcpServers" file',
  claude: 'Claude Code: run this command',
  codex: 'Codex: ~/.codex/config.toml',
  vscode: 'VS Code: .vscode/mcp.json (or the user mcp.json)',
  cursor: 'Cursor: ~/.cursor/mcp.json (or .cursor/mcp.json in a project)',
  windsurf: 'Windsurf: ~/.codeium/windsurf/mcp_config.json',
  gemini: 'Gemini CLI: ~/.gemini/settings.json (or .gemini/settings.json in a project)',
};

export const laneConfig = (format: ConfigFormat, name: string, url: string, token: string): string => {
  const headers = { Authorization: `Bearer ${token}` };
  const json = (v: unknown): string => JSON.stringify(v, null, 2);
  switch (format) {
    case 'codex':
      return [`[mcp_servers.${name}]`, `url = "${url}"`, `http_headers = { "Authorization" = "Bearer ${token}" }`].join('\n');
    case 'claude':
      return `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer ${token}"`;
    case 'vscode':
      return json({ servers: { [name]: { type: 'http', url, headers } } });
    case 'cursor':
      return json({ mcpServers: { [name]: { url, headers } } });
    case 'windsurf':
      return json({ mcpServers: { [name]: { serverUrl: url, headers } } });
    case 'gemini':
      return json({ mcpServers: { [name]: { httpUrl: url, headers } } });
    default:
      return json({ mcpServers: { [name]: { type: 'http', url, headers } } });
  }
};
