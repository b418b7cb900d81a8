/**
 * The starter policy `lanegate init` writes: one shared trust domain with one reference server,
 * one principal trust domain (empty, explained), one lane. Pure text; the caller decides how the
 * reference server is launched (from lanegate's own node_modules when it is there, else npx).
 */
export interface StarterLaunch {
  /** The `commands` entry the launch uses: its key and its path. */
  command: { key: string; path: string };
  args: string[];
}

const yamlString = (s: string): string => JSON.stringify(s);

export const starterPolicy = (
  launch: StarterLaunch,
  port: number,
): string => `# A lanegate policy, written by \`lanegate init\`. Read it top to bottom; \`npx lanegate check\`
# validates it (every problem with file:line:col) and \`npx lanegate serve\` runs it.
version: 1

gateway:
  listen: 127.0.0.1:${port}          # loopback only; lanes connect to http://127.0.0.1:${port}/mcp
  stateDir: "{policyDir}/.lanegate"  # keys, token records, guard records, per-server work dirs

# Layer one of the guard: the ONLY programs an upstream may run. {node} is the Node.js that
# runs lanegate, resolved to its absolute path at load time.
commands:
  ${launch.command.key}: { path: ${yamlString(launch.command.path)} }

trustDomains:
  # Holds no credential: its servers may share one process across lanes once measured
  # stateless (\`npx lanegate measure\`), and each lane's view stays its own.
  public:
    kind: shared
    description: Servers that hold no credential.
  # One person's credentials. A principal domain never shares a process: every lane gets its
  # own host process, and only that host reads the lane's secret file. Add a server here with
  # \`domain: personal\`, and its secret as
  #   secrets: { API_TOKEN: { file: "{stateDir}/secrets/api-{lane}.token" } }
  personal:
    kind: principal
    description: One person's credentials (add servers that need them here).

servers:
  # The MCP reference server (tools, prompts, resources). Its tools reach a lane as every_<tool>.
  everything:
    prefix: every
    domain: public
    description: The MCP reference server.
    stdio:
      command: ${launch.command.key}
      args: [${launch.args.map(yamlString).join(', ')}]

# A lane is one client's URL and token: it sees only the servers listed here.
# Issue its token and client config with: npx lanegate token issue --lane main --format claude
lanes:
  main:
    servers: [everything]
`;
