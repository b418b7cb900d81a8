/** The blocks lane owners paste into their MCP client. Pure. */
export type ConfigFormat = 'json' | 'claude' | 'codex';

export const laneConfig = (format: ConfigFormat, name: string, url: string, token: string): string => {
  if (format === 'codex') {
    return [`[mcp_servers.${name}]`, `url = "${url}"`, `http_headers = { "Authorization" = "Bearer ${token}" }`].join('\n');
  }
  if (format === 'claude') {
    return `claude mcp add --transport http ${name} ${url} --header "Authorization: Bearer ${token}"`;
  }
  return JSON.stringify({ mcpServers: { [name]: { type: 'http', url, headers: { Authorization: `Bearer ${token}` } } } }, null, 2);
};
