import { FINDING_TEXT, type Finding } from './findings.js';
import type { VisibleString } from './strings.js';

/** The MCP specification's tool name rule (2025-11-25): 1 to 128 of A-Z a-z 0-9 _ - . — applied to prompts too. */
const TOOL_NAME = /^[A-Za-z0-9_.-]{1,128}$/;
/** C0 and C1 controls and DEL: never part of a name, a URI or a title a lane is shown. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding control characters is this regex's purpose
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/**
 * Names a lane would be shown raw and could not use safely: a tool or prompt name outside the
 * spec's name rule (an ESC, CR or LF in one reaches terminals and logs as a control sequence),
 * a resource name, title or URI with a control character, a URI with white space. Pure.
 */
export const nameFindings = (g: VisibleString[]): Finding[] =>
  g.flatMap((v): Finding[] => {
    const isName = v.field === 'name' && (v.kind === 'tool' || v.kind === 'prompt');
    const isResourceId =
      (v.kind === 'resource' || v.kind === 'resourceTemplate') &&
      (v.field === 'name' || v.field === 'title' || v.field === 'uri' || v.field === 'uriTemplate');
    const bad = isName
      ? !TOOL_NAME.test(v.text)
      : isResourceId && (CONTROL.test(v.text) || ((v.field === 'uri' || v.field === 'uriTemplate') && /\s/.test(v.text)));
    return bad
      ? [
          {
            code: 'invalid_name',
            kind: v.kind,
            item: v.item,
            field: v.field,
            matched: v.text.slice(0, 200),
            finding: FINDING_TEXT.invalid_name,
          },
        ]
      : [];
  });

/** The longest name, title or URI read (characters); past it the item is refused unread. */
export const MAX_NAME_CHARS = 2048;
/** The longest other model-visible string read (a description, an instruction, a schema value). */
export const MAX_TEXT_CHARS = 64 * 1024;

const capOf = (v: VisibleString): number =>
  v.field === 'name' || v.field === 'title' || v.field === 'uri' || v.field === 'uriTemplate' ? MAX_NAME_CHARS : MAX_TEXT_CHARS;

/**
 * Strings too long to be read in bounded time: the item is refused for its size, and the rules read
 * only the first MAX_* characters of each. A 1 MB resource name made one lane's call cost a shared
 * host twenty minutes of CPU while the rules read it (attack round 6); no real server needs one.
 */
export const oversized = (g: VisibleString[]): { findings: Finding[]; read: VisibleString[] } => {
  const findings: Finding[] = [];
  const read = g.map((v) => {
    const cap = capOf(v);
    if (v.text.length <= cap) return v;
    findings.push({
      code: 'oversized_text',
      kind: v.kind,
      item: v.item.slice(0, 200),
      field: v.field,
      matched: `${v.text.length} characters (at most ${cap} are read)`,
      finding: FINDING_TEXT.oversized_text,
    });
    return { ...v, text: v.text.slice(0, cap), ...(v.item.length > MAX_NAME_CHARS ? { item: v.item.slice(0, MAX_NAME_CHARS) } : {}) };
  });
  return { findings, read };
};
