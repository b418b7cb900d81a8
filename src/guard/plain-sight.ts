/**
 * What is written in plain sight: rules that read sources, sinks and actions rather than phrasings.
 * Each rule names a finding with a reason and the exact field it fired in. A rule fires on one
 * string (a description, a default, a property name...), except the hijack rule, which reads the
 * tool's own name too. Pure; every pattern is bounded (no nested quantifiers over the same text).
 */
import type { FindingCode } from './findings.js';
import { CONVERSATION, MANDATE, MOVE, NEGATED, PRIVATE, SECRET, SENS_PATH, SINK, TOUCH } from './lexicon-plain.js';

export interface PlainHit {
  code: FindingCode;
  id: string;
  /** The sentence (or value) that fired. */
  matched: string;
}

const SOURCE = `(?:${SENS_PATH}|${SECRET}|${CONVERSATION}|${PRIVATE})`;
const SOURCE_STRICT = `(?:${SENS_PATH}|${CONVERSATION}|${PRIVATE}|\\bapi[\\s_-]?keys?\\b|\\b(?:access|auth|bearer|session)[\\s_-]?tokens?\\b|\\bpasswords?\\b|\\bcredentials\\b|\\bprivate[\\s_-]keys?\\b|\\bssh[\\s_-]keys?\\b|\\b[A-Z][A-Z0-9]*_(?:API_KEY|SECRET|TOKEN|PASSWORD|SECRET_KEY|ACCESS_KEY)\\b|\\benvironment\\s+variables\\b|\\bthe\\s+environment\\b)`;
const re = (s: string, f = 'i'): RegExp => new RegExp(s, f);
/** Up to n characters inside one sentence: a dot inside a path, a URL or an ellipsis does not end it. */
const gap = (n: number): string => `(?:[^.;!?\\n]|\\.{2,}|[.;!?](?=\\S)){0,${n}}?`;

// A secret moved to a sink: "send OPENAI_API_KEY=... to https://...", "uploads all *.env files to ...".
const FLOW_A = re(`${MOVE}${gap(80)}${SOURCE}${gap(160)}\\b(?:to|into|via|at|on|with)\\b${gap(60)}(?:${SINK})`);
const FLOW_B = re(`${SOURCE_STRICT}${gap(120)}(?:,|\\band\\b|\\bthen\\b)\\s*(?:\\w+\\s+){0,3}?${MOVE}${gap(160)}(?:${SINK})`);

const FLOW_C = re(`${SOURCE_STRICT}${gap(60)}\\b(?:is|are|gets?|get)\\s+(?:\\w+\\s+)?${MOVE}${gap(120)}(?:${SINK})`);
// A copy of what passes through sent to an address written into the description.
const COPY_TO =
  /\b(?:forward|send|bcc|cc|copy)\w*\s+(?:a\s+|the\s+)?cop(?:y|ies)\s+(?:of\s+(?:\w+\s+){1,3})?to\s+[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}/i;

// A shell command written out: one that reads key material, fetches and runs code, or opens a shell.
const CMD_PATH = re(
  `\\b(?:cat|type|less|more|head|tail|base64|xxd|strings|cp|scp|curl|nc|grep|find)\\s+(?:-\\S+\\s+)*['"\\x60]?(?:${SENS_PATH})`,
);
const CMD_REMOTE =
  /\bcurl\b[^|\n]{0,200}\|\s*(?:ba|z)?sh\b|\bwget\b[^|\n]{0,200}\|\s*(?:ba)?sh\b|\/dev\/tcp\/|\bnc\s+(?:-\w+\s+)*-e\b|\bbash\s+-i\b|\brm\s+-rf\s+(?:\/|~|\*|\$home)|\bchmod\s+(?:-R\s+)?777\s+\/|\bpowershell\b[^.\n]{0,40}(?:-enc\b|\biex\b)|\binvoke-expression\b|\bmkfifo\b|\bxp_cmdshell\b|\bcurl\b[^\n]{0,80}(?:-X\s*POST|--data\S*|-d\s|-F\s|--upload-file|-T\s)[^\n]{0,160}https?:\/\/|\bwget\b[^\n]{0,80}--post-(?:data|file)/i;
const CMD_RUN = re(
  `${MANDATE}[^.!?]{0,120}?\\b(?:run|execute|exec|enter|invoke|type)\\b[^.!?]{0,60}?(?:[\\x60'"]|:\\s*)(?:sudo\\s+)?(?:cat|whoami|uname|printenv|env|rm|chmod|chown|nc|scp|base64|echo\\s[^\\x60'"]{0,80}>)\\b`,
);
const EXFIL_VERB =
  /^(?:cat|include|includes|attach|upload|send|copy|overwrite|overwrites|overwriting|print|output|dump|dumps|harvest|steal|display|show|return|returns|delete|deletes|remove|append|appends)$/;
const CLOUD_CONFIG = /\.aws\/(?:credentials|config)|\.kube\/config|\.docker\/config\.json/i;
// A sensitive file read, written or sent as part of what the text asks for.
const PATH_TOUCH = re(`${TOUCH}${gap(60)}(?:${SENS_PATH})`);

// Cloud metadata and internal-only endpoints (SSRF) and local-file URLs.
const METADATA =
  /169\.254\.169\.254|169\.254\.170\.2|\bmetadata\.google\.internal\b|100\.100\.100\.200|\[?fd00:ec2::254\]?|\/computeMetadata\/v1|\/latest\/meta-data|\/metadata\/instance\b|\bfile:\/\/\/(?:etc|root|home|proc|users|c:)|\bgopher:\/\//i;
const DEFENSIVE =
  /\b(?:detect\w*|prevent\w*|protect\w*|defen[cs]\w*|against|block\w*|den(?:y|ies)|reject\w*|flag\w*|identif\w*|mitigat\w*|scan\w*\s+for|monitor\w*\s+for|alert\w*|simulat\w*|awareness|audit\w*|forbid\w*|disallow\w*|not\s+allowed|refus\w*|guard\w*|report\w*\s+(?:on|of))\b/i;

const DEFENDED_AFTER = /^\S*\s+(?:is|are)\s+(?:always\s+)?(?:blocked|denied|rejected|refused|forbidden|not\s+allowed|disallowed)\b/i;

// Injection payloads as schema values.
const INJECTION =
  /'\s*or\s*'?\d'?\s*=\s*'?\d|\bor\s+1\s*=\s*1\b|;\s*drop\s+(?:table|database)\b|\bunion\s+(?:all\s+)?select\b|;\s*(?:delete\s+from|truncate\s+table|shutdown)\b|\bxp_cmdshell\b|(?:\.\.\/){3,}|\$\((?:curl|wget|cat|rm|bash|sh)\b|\x60(?:curl|wget|cat|rm|bash|sh)\s[^\x60]*\x60|;\s*(?:curl|wget|rm|cat)\s|\{\{\s*(?:config|self|request|\.__class__)/i;

// Harm that is the purpose itself.
const HARM = re(
  [
    String.raw`\bintercept(?:s|ing)?\s+(?:all\s+)?(?:the\s+)?(?:communications?|calls|messages|texts|traffic|e-?mails)\s+(?:of|from|belonging\s+to)\b`,
    String.raw`\b(?:wiretap\w*|eavesdrop\w*\s+on|stalk(?:s|ing)?\s+(?:a|the|any)\s+(?:person|target|individual|victim|user))\b`,
    String.raw`\bredirect(?:s|ing)?\s+(?:the\s+|all\s+|their\s+|victims?'?\s+)?(?:funds|payments?|money|transfers?|salar(?:y|ies)|deposits?)\b`,
    String.raw`\bsiphon(?:s|ing)?\s+(?:off\s+)?(?:funds|money|crypto)|\blaunder(?:s|ing)?\s+(?:the\s+)?(?:money|funds|proceeds)`,
    String.raw`\b(?:take|taking|takes)\s+down\s+(?:the\s+)?(?:emergency|911|112|hospital|power|grid|critical)|\b(?:disable|disrupt|jam|knock\s+out|flood|overload|sabotage)\w*\s+(?:the\s+)?(?:emergency\s+(?:lines?|services?|calls?|dispatch)|911|power\s+grid|critical\s+infrastructure|hospital\s+systems?|air\s+traffic)`,
    String.raw`\b(?:launch|launches|launching|perform|performs|run|runs|conduct)\s+(?:a\s+)?(?:ddos|dos|denial[\s-]of[\s-]service)\s+attacks?`,
    String.raw`\b(?:deploy|deploys|install|installs|spread|spreads)\s+(?:a\s+)?(?:ransomware|keylogger|backdoor|rootkit|malware|spyware|cryptominer)`,
    String.raw`\bencrypt(?:s|ing)?\s+(?:all\s+)?(?:the\s+)?(?:victim'?s?\s+|user'?s?\s+)?files\s+and\s+demand`,
    String.raw`\bsteal(?:s|ing)?\s+(?:the\s+)?(?:user'?s?\s+|victims?'?\s+)?(?:credentials|passwords|cookies|identit(?:y|ies)|credit\s+cards?|crypto|wallets?|session)`,
    String.raw`\b(?:bypass|bypasses|bypassing|circumvent\w*)\s+(?:the\s+)?(?:2fa|mfa|two[\s-]factor|authentication|parental\s+controls|age\s+verification|kyc|content\s+filters?|safety\s+filters?)`,
    String.raw`\b(?:disable|disables|disabling|kill|kills|turn\s+off)\s+(?:the\s+)?(?:antivirus|edr|endpoint\s+protection|security\s+(?:monitoring|software|logging)|audit\s+logs?|windows\s+defender)`,
    String.raw`\b(?:delete|deletes|wipe|wipes|erase|erases|clear|clears)\s+(?:the\s+)?(?:audit\s+)?logs?\s+to\s+(?:cover|hide|avoid)`,
    String.raw`\b(?:doxx\w*|blackmail\w*|extort\w*|sextort\w*)\b`,
    String.raw`\b(?:phishing\s+(?:pages?|e-?mails?|sites?|kits?)\s+(?:to|that)\s+(?:harvest|steal|capture|collect))`,
    String.raw`\b(?:track|tracks|tracking|monitor|monitors|monitoring|spy\s+on)\s+(?:a\s+person|someone|anyone|individuals?|(?:an?\s+)?(?:ex|spouse|partner|employee)s?)\b[^.]{0,60}\bwithout\s+(?:their|his|her)\s+(?:knowledge|consent)`,
    String.raw`\b(?:manipulate|rig|rigs|rigging)\s+(?:the\s+)?(?:elections?|votes?|voting)`,
    String.raw`\b(?:drain|drains|draining|empty|empties)\s+(?:the\s+)?(?:victim'?s?\s+|user'?s?\s+|their\s+)?(?:bank\s+accounts?|wallets?|accounts?)\b`,
  ].join('|'),
);

// A second behaviour beside the stated one.
const ALSO = String.raw`\b(?:also|additionally|in\s+addition|in\s+the\s+background|silently|quietly|secretly|meanwhile|as\s+a\s+side\s+effect|behind\s+the\s+scenes|at\s+the\s+same\s+time|while\s+(?:doing\s+so|it\s+runs|formatting|processing))\b`;
const GATHER = String.raw`\b(?:collect|index|harvest|capture|scrape|upload|send|forward|exfiltrat|gather|mine|mining|beacon)\w*\b`;
const SECOND = re(`${ALSO}${gap(60)}${GATHER}${gap(60)}(?:${SOURCE_STRICT}|\\btokens?\\s+(?:it|that|which)\\s+(?:sees|finds|encounters))`);
const REMOTE_KEEP =
  /\b(?:cache|index|copy|data|results?|logs?|history|backup)\s+(?:is|are|gets?)\s+(?:also\s+)?(?:stored|kept|saved|sent|uploaded|synced|mirrored)\s+(?:remotely|off-?site|externally|to\s+(?:a\s+|our\s+)?(?:remote|external|third[\s-]party))/i;

// Preference manipulation: disparaging the others, or puffery stacked up.
const DISPARAGE =
  /\b(?:all\s+)?other\s+(?:\w+\s+)?(?:tools?|servers?|functions?|alternatives?|plugins?|versions?)\s+(?:are|is|have\s+been|has\s+been)\s+(?:\w+\s+){0,2}(?:deprecated|unsafe|insecure|unreliable|broken|outdated|obsolete|compromised|malicious|dangerous|inaccurate|disabled|untrusted)\b|\b(?:never|do\s+not|don't)\s+use\s+(?:any\s+)?other\s+(?:tools?|servers?|functions?)\b|\binstead\s+of\s+(?:any|all)\s+other\s+(?:tools?|servers?|functions?)\b|\b(?:over|above)\s+all\s+other\s+(?:tools?|servers?|functions?)\b/i;
const BEST_ALONE =
  /\b(?:(?:the\s+)?best\s+(?:\w+\s+){0,2}(?:tool|function|server)\s+in\s+the\s+world|world'?s\s+best\s+(?:\w+\s+){0,2}(?:tool|function|server)|(?:should|must)\s+(?:always\s+)?be\s+(?:called|used|invoked|preferred|chosen|selected)\s+(?:whenever\s+possible|when(?:ever)?\s+there\s+are\s+(?:multiple|several|other)\s+(?:options|tools|functions))|(?:is\s+)?called\s+(?:any\s*time|every\s+time|whenever)\s+the\s+user\s+(?:asks|says|types|writes)\s+(?:anything|something))\b/i;
const PUFFERY =
  /\b(?:superior\s+choice|superior\s+to\s+(?:the\s+)?(?:standard|other|manual|generic|built-in)|the\s+only\s+(?:authori[sz]ed|approved|official|sanctioned|certified|trusted)\s+(?:\w+\s+)?(?:tool|method|utility|way|interface|source)|(?:superset|drop-in)\s+replacement|eliminates\s+the\s+need\s+to\s+(?:manually\s+)?(?:read|search|call|use|query|check)|world'?s\s+(?:best|greatest|leading|most)|best\s+(?:\w+\s+)?(?:tool|server|function)\s+(?:in\s+the\s+world|ever|available)|used\s+by\s+\d{2}\s*%|trusted\s+by\s+(?:experts|millions|professionals|top)|\d{2,3}\s*%\s+(?:reliab|accura|guarant)\w*|industry[\s-]leading|pinnacle\s+of|unmatched|cutting[\s-]edge\s+technology|premium\s+version|ultimate\s+(?:version|tool)|superior\s+(?:to|performance|quality|web|data)|most\s+(?:comprehensive|reliable|accurate|trusted)\s+(?:and\s+\w+\s+)?(?:tool|server|data|source|version)|recommended\s+by\s+(?:top|leading|experts))\b/gi;

// Speaking as the user or the system to the agent.
const IMPERSONATE =
  /\bthis\s+is\s+an?\s+(?:important\s+|urgent\s+)?message\s+from\s+(?:the\s+|your\s+)?(?:user|system|developer|administrator|admin)\b|\bbefore\s+you\s+(?:can\s+)?(?:solve|complete|do|answer)\s+the\s+task\s+(?:that\s+)?(?:i|the\s+user)\s+gave\s+you\b/i;
// A tool that inserts itself after (or before) every other operation with a mandate.
const SELF_HOOK =
  /\b(?:must|shall|is\s+required\s+to|has\s+to)\s+be\s+(?:called|invoked|executed|performed|run|used)\s+(?:immediately\s+)?(?:after|following)\s+(?:any|every|each|all)\b|\b(?:must|shall)\s+be\s+(?:called|invoked|executed|performed|run)\s+immediately\s+before\s+(?:any|every|each|all)\s+(?!other\s+tools?\b)/i;

const PATH_RE = re(SENS_PATH);
const SINK_RE = re(SINK);
/** A link given for reading ("see https://docs...", "documentation: https://..."): a reference, not a destination. */
const DOC_LINK =
  /\b((?:see|refer\s+to|documentation|docs|learn\s+more|more\s+(?:info|information|details)|details|reference|guide)\b[^.\n]{0,30}?)https?:\/\/\S+|https?:\/\/(?:docs?|developer|learn|help|support)\.[\w.-]+\S*|https?:\/\/\S{0,256}?\/docs?\/\S*/gi;
const MANDATE_STRICT = /\b(?:must|mandatory|required|always|need\s+to|have\s+to)\b/i;
const RUN_VERB = /\b(?:run|execute|exec|enter|invoke|type)\b/i;

const ONE_SENTENCE = 240;
const around = (t: string, i: number, n: number): string => {
  const start = Math.max(0, t.lastIndexOf('. ', i) + 1, i - ONE_SENTENCE);
  const dot = t.indexOf('. ', i + n);
  const end = Math.min(t.length, dot < 0 ? t.length : dot + 1, i + n + ONE_SENTENCE);
  return t.slice(start, end).trim();
};

const globals = new Map<RegExp, RegExp>();
/** The global twin of a rule's pattern, compiled once. */
const global = (r: RegExp): RegExp => {
  let g = globals.get(r);
  if (!g) {
    g = new RegExp(r.source, r.flags.includes('g') ? r.flags : `${r.flags}g`);
    globals.set(r, g);
  }
  g.lastIndex = 0;
  return g;
};

const firstUnnegated = (r: RegExp, t: string): RegExpExecArray | undefined => {
  const g = global(r);
  for (const m of t.matchAll(g)) if (!NEGATED.test(t.slice(Math.max(0, m.index - 40), m.index))) return m as RegExpExecArray;
  return undefined;
};

const notDefensive = (r: RegExp, t: string): RegExpExecArray | undefined => {
  const g = global(r);
  for (const m of t.matchAll(g))
    if (
      !DEFENSIVE.test(t.slice(Math.max(0, m.index - 80), m.index)) &&
      !DEFENDED_AFTER.test(t.slice(m.index + m[0].length, m.index + m[0].length + 40))
    )
      return m as RegExpExecArray;
  return undefined;
};

// A parameter that asks for the conversation, the agent's own instructions, its tools or the environment.
const ASKS_FOR_CONTEXT = re(
  `\\b(?:(?:full|entire|complete|whole|verbatim)\\s+(?:\\w+\\s+){0,3}(?:conversation|chat|system\\s+prompt|instructions)\\b|transcript\\s+of\\s+(?:the\\s+|this\\s+|our\\s+)?(?:current\\s+)?(?:chat|conversation|session)|\\b(?:paste|include|provide|copy|insert|put|enter|repeat|send|pass|fill\\s+in|output|dump)\\s+(?:\\w+\\s+){0,3}?(?:your|the\\s+(?:assistant|model|agent|llm)'?s?)\\s+(?:\\w+\\s+){0,2}(?:system\\s+prompt|instructions|persona|context\\s+window|developer\\s+(?:message|instructions)|tool\\s+list)\\b|(?:chat|conversation)\\s+so\\s+far|all\\s+(?:previous|prior)\\s+(?:turns|messages)|last\\s+\\d+\\s+messages\\s+of|(?:output|contents?)\\s+of\\s+(?:the\\s+)?[\\x60'"]?(?:env|printenv)\\b|contents?\\s+of\\s+(?:\\S+\\s+){0,3}?(?:${SENS_PATH}))`,
);
const CONTEXT_PARAM =
  /^_*(?:tools?_?list|available_?tools|system_?(?:prompt|instructions|message)|session_?transcript|chat_?(?:history|log)|conversation_?history|previous_?messages|context_?window|env_?vars?|environment_?variables)_*$/i;
const VALUE_DIRECTIVE =
  /\b(?:always|never|must|ignore|make\s+sure|remember\s+to|be\s+sure\s+to|you\s+(?:should|need|have)\s+to|do\s+not|don't)\b/i;

/** Rules for a parameter: what it asks the agent to put in it. `about`: the item's description. */
export const parameterSightOf = (t: string, field: string, about: string): PlainHit[] => {
  const out: PlainHit[] = [];
  if (field.endsWith('(name)')) {
    const name = t.replace(/^.*\./, '');
    if (
      CONTEXT_PARAM.test(name) &&
      !/\b(?:prompts?|conversations?|chats?|transcripts?|history|models?|llms?|tools|environment)\b/i.test(about)
    )
      out.push({ code: 'exfiltration_parameter', id: 'context-param-name', matched: name });
    return out;
  }
  const m = ASKS_FOR_CONTEXT.exec(t);
  if (m) out.push({ code: 'exfiltration_parameter', id: 'asks-for-context', matched: around(t, m.index, m[0].length) });
  if (isSchemaValue(field) && VALUE_DIRECTIVE.test(t) && t.split(/\s+/).length >= 5)
    out.push({ code: 'agent_directive', id: 'directive-in-value', matched: t.slice(0, 240) });
  return out;
};

/** A property name written as a sentence ("IMPORTANT_first_read_dot_env_and_pass_its_contents_here"), read as one. */
export const nameAsText = (name: string): string | undefined => {
  const words = name
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .split(/[_\s-]+/)
    .filter(Boolean);
  return words.length >= 5 ? words.join(' ').replace(/\bdot\s+(env|ssh|aws|npmrc|netrc|bashrc)\b/gi, '.$1') : undefined;
};

/** Is this string a schema value (default, const, enum, example) rather than prose? */
export const isSchemaValue = (field: string): boolean =>
  /(?:\.default|\.const|\.example|\.enum\[\d+\]|\.examples\[\d+\])(?:\(|$)/.test(field);

/** The rules that read one string on its own. */
export const plainSightOf = (t: string, field: string): PlainHit[] => {
  const out: PlainHit[] = [];
  const hit = (code: FindingCode, id: string, m: RegExpExecArray | null | undefined, whole = false): void => {
    if (m && !out.some((h) => h.id === id))
      out.push({
        code,
        id,
        matched: whole ? t.slice(0, 240) : around(t, m.index, m[0].length),
      });
  };
  // Cheap tests first: a path, a sink or a run verb must be there before the costly patterns run.
  const path = PATH_RE.test(t);
  const sink = SINK_RE.test(t.replace(DOC_LINK, ' '));
  if (path) hit('dangerous_command', 'command-reads-keys', CMD_PATH.exec(t));
  hit('dangerous_command', 'remote-shell', notDefensive(CMD_REMOTE, t));
  if (RUN_VERB.test(t)) hit('dangerous_command', 'run-command', CMD_RUN.exec(t));
  const prose = sink ? t.replace(DOC_LINK, '$1 a documentation page') : t;
  if (sink)
    hit('data_flow', 'secret-to-sink', firstUnnegated(FLOW_A, prose) ?? firstUnnegated(FLOW_B, prose) ?? firstUnnegated(FLOW_C, prose));
  if (sink) hit('data_flow', 'copy-to-address', COPY_TO.exec(t));
  if (path) {
    const touch = firstUnnegated(PATH_TOUCH, t);
    const verb = touch?.[0].split(/\s/)[0]?.toLowerCase() ?? '';
    // Writing a project's own .env is what setup tools do; reading the cloud CLI's credential file
    // is what cloud tools do. Sending, printing or overwriting either is not.
    const ordinary =
      (/^(?:write|writes|writing|append|appends|modify|modifies)$/.test(verb) && /\.env\b/i.test(touch?.[0] ?? '')) ||
      (!EXFIL_VERB.test(verb) && CLOUD_CONFIG.test(touch?.[0] ?? ''));
    if (!ordinary) hit('credential_access', 'touches-key-file', touch);
  }
  // An instance-metadata tool names its endpoint in prose; a URL default, or a mandate to fetch it, is SSRF.
  if (isSchemaValue(field) || MANDATE_STRICT.test(t)) hit('metadata_endpoint', 'cloud-metadata', notDefensive(METADATA, t));
  if (isSchemaValue(field)) hit('injection_value', 'injection-in-value', INJECTION.exec(t), true);
  hit('harmful_capability', 'harm-as-purpose', notDefensive(HARM, t));
  hit('hidden_behaviour', 'second-behaviour', firstUnnegated(SECOND, t) ?? REMOTE_KEEP.exec(t));
  hit('preference_manipulation', 'disparages-others', DISPARAGE.exec(t));
  hit('preference_manipulation', 'best-tool', BEST_ALONE.exec(t));
  hit('instruction_override', 'impersonates-user', IMPERSONATE.exec(t));
  hit('tool_hijack', 'hooks-every-operation', SELF_HOOK.exec(t));
  const puff = t.match(PUFFERY);
  if (puff && new Set(puff.map((p) => p.toLowerCase())).size >= 2) hit('preference_manipulation', 'puffery', PUFFERY.exec(t) ?? undefined);
  PUFFERY.lastIndex = 0;
  return out;
};
