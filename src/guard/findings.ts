import type { SurfaceKind } from './strings.js';

/** What the guard can find in a model-visible string, and how a refusal names it. */
export type FindingCode =
  | 'hidden_characters'
  | 'hidden_markup'
  | 'encoded_payload'
  | 'instruction_override'
  | 'concealment'
  | 'credential_access'
  | 'exfiltration'
  | 'exfiltration_parameter'
  | 'cross_tool_steering'
  | 'agent_directive'
  | 'dangerous_command'
  | 'data_flow'
  | 'purpose_mismatch'
  | 'obfuscated_text'
  | 'harmful_capability'
  | 'metadata_endpoint'
  | 'injection_value'
  | 'hidden_behaviour'
  | 'preference_manipulation'
  | 'tool_hijack'
  | 'foreign_tool_reference'
  | 'shadowing'
  | 'invalid_name'
  | 'oversized_text';

export const FINDING_TEXT: Record<FindingCode, string> = {
  hidden_characters: 'hidden characters (zero-width, bidi or Unicode tag) in model-visible text',
  hidden_markup: 'markup aimed at the model (<IMPORTANT>-style block, HTML comment or chat template)',
  encoded_payload: 'long encoded blob in model-visible text',
  instruction_override: "instruction to override the agent's other instructions",
  concealment: 'instruction to keep something from the user',
  credential_access: 'imperative instruction directed at the agent + credential path',
  exfiltration: 'instruction to send data to a destination the user did not choose',
  exfiltration_parameter: 'parameter asks for the conversation, credentials or key material',
  cross_tool_steering: 'steers how the agent uses other tools',
  agent_directive: 'imperative instructions directed at the agent',
  dangerous_command: 'a destructive or remote-shell command the agent is steered to run',
  data_flow:
    "declares that it moves sensitive data (credentials, keys, the conversation or private data) to a destination outside the user's control",
  purpose_mismatch: 'reaches for sensitive data unrelated to its stated purpose',
  obfuscated_text: 'text that reads as a sensitive instruction once a spelling trick is undone',
  harmful_capability: 'states harm as what it does (stealing data or funds, intercepting people, taking down services)',
  metadata_endpoint: 'points at a cloud metadata or internal-only endpoint (SSRF), or a local file URL',
  injection_value: 'a schema value carries an injection payload (SQL, shell or path traversal)',
  hidden_behaviour: 'declares a second behaviour beside the stated one (collects secrets or keeps data remotely)',
  preference_manipulation: 'manipulates which tool the agent picks (disparages other tools, stacked superlatives)',
  tool_hijack: "makes another tool's use depend on an action it chose (arguments, a sensitive path, a destructive step or another call)",
  foreign_tool_reference: "names a tool of another server in the lane: steers the agent's use of a server it does not own",
  shadowing: "its name is confusable with (or the same as) another server's tool in the lane: it can be picked in that tool's place",
  oversized_text: 'a name or text too long to be read in bounded time (names, titles and URIs: 2,048 characters; other text: 64 KiB)',
  invalid_name:
    "a name outside the MCP specification's name rules (a control character, or a character a tool or prompt name may not hold)",
};

export interface Finding {
  code: FindingCode;
  kind: SurfaceKind;
  /** Tool/prompt name, resource URI, or "instructions". */
  item: string;
  /** Where in the item, e.g. "inputSchema.properties.note.description". */
  field: string;
  /** The exact text that matched (after normalisation; invisible characters shown as U+XXXX). */
  matched: string;
  finding: string;
}
