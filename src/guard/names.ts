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
