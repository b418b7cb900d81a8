import { isPlaceholder, shannon } from './entropy.js';
import type { SecretRuleId } from './rule-ids.js';

/**
 * The secret rules. Learned from gitleaks' public rule set (github.com/gitleaks/gitleaks,
 * config/gitleaks.toml, read at b58d3f1, July 2026: rule ids noted in `source`), written anew
 * for lanegate: every pattern here runs in linear time on any input. Each one either has a
 * bounded length, or is anchored at a token boundary by a lookbehind and repeats only a character
 * class its delimiters are not in, so no start position re-scans more than a bounded stretch.
 * The 1 MB adversarial inputs in test/unit/secrets-scanner.test.ts hold them to that.
 */
export interface SecretRule {
  /** Stable id: what refusals, logs and the metric name. */
  id: SecretRuleId;
  description: string;
  /** The gitleaks rule(s) it learned from, or 'lanegate'. */
  source: string;
  /** The rule runs only on text holding one of these (case-sensitive) … */
  keywords?: string[];
  /** … or, for case-insensitive rules, whose lowercase form holds one of these. */
  lowerKeywords?: string[];
  /** Global (and sticky-free) pattern; group 1, when present, is the credential itself. */
  re: RegExp;
  /** The credential must look random: at least this many bits per character. */
  minEntropy?: number;
  /** Placeholders (AKIAIOSFODNN7EXAMPLE, xxxx, <token>…) are not findings. Default true. */
  allowPlaceholders?: boolean;
  /** Check `keywords` on long strings too (only where that is cheaper than the pattern). */
  prefilterAlways?: boolean;
  /** An extra check on the whole match (a JWT's header must be JSON). */
  verify?: (match: string) => boolean;
  /**
   * A match may be longer than 1,000 characters: a long string's pass of this rule reads it whole
   * in one step, not a window at a time (text.ts). Every other rule's match is shorter (checked by
   * rules.test: no unbounded repetition in its pattern).
   */
  unbounded?: true;
}

/** Names that say "this holds a credential" (in a `.env` line, a JSON key, `name: value` text). */
export const SECRET_NAME =
  /(?:secret|token|passw(?:or)?d|passphrase|pwd|api[_.-]?key|private[_.-]?key|access[_.-]?key|credential|auth[_.-]?key|client[_.-]?secret|session[_.-]?key|signing[_.-]?key|bearer)/i;

/** Names that look like SECRET_NAME but hold no credential (counts, names, ids, public halves). */
export const NOT_SECRET_NAME =
  /(?:max[_.-]?tokens|tokens?[_.-]?(?:count|limit|usage|type|endpoint|url|uri|file|path|name|id)|(?:page|next|continuation|sync|progress|csrf|cancel(?:lation)?|public|resume)[_.-]?token|secret[_.-]?(?:name|id|ref|length|size|arn|version)|key[_.-]?(?:id|name|alias|size|length|path|file)|password[_.-]?(?:hint|policy|length|rules|changed|expir\w*)|tokenizer|_count$)/i;

/** Whether a property or variable name holds a credential, by its words. Pure. */
export const isSecretName = (name: string): boolean => SECRET_NAME.test(name) && !NOT_SECRET_NAME.test(name);

const b64urlJson = (segment: string): boolean => {
  try {
    if (segment.length > 4096) return false;
    const text = Buffer.from(segment, 'base64url').toString('utf8').trim();
    // Only a JSON object is worth a parse (and its exception, for the many that are not).
    if (!text.endsWith('}')) return false;
    const v: unknown = JSON.parse(text);
    return v !== null && typeof v === 'object' && !Array.isArray(v) && ('alg' in v || 'typ' in v || 'enc' in v);
  } catch {
    return false;
  }
};

// Token boundaries: a credential starts and ends where its alphabet does. The start is checked
// after the literal prefix (`xox(?<![…]xox)`), not before it: a pattern that opens with a literal
// lets V8 seek that literal, where a leading lookbehind is tried at every position (4 ms a MB).
const at = (literal: string): string => `${literal}(?<![A-Za-z0-9_-]${literal})`;
const E = '(?![A-Za-z0-9_-])';
// A prefix no honest word holds (`ghp_`, `glpat-`, `xoxb-`, `sk_live_`, `sk-ant-`, `AIza`) opens its
// pattern with no start boundary: attack round 12 glued one character before a token (`xghp_…`,
// `MY_GH_TOKEN_ghp_…`, `0ghp_…`) and the boundary hid it. Each such pattern's length is bounded, so
// a match tried at every occurrence of its prefix still reads a bounded stretch: linear. The JWT
// keeps its boundary (its length is not bounded), as does OpenAI's bare `sk-` form, after a letter
// only (`task-…`).

export const RULES: readonly SecretRule[] = [
  {
    id: 'private_key',
    description: 'a PEM private key block (RSA, EC, DSA, OPENSSH, PGP, PKCS#8, encrypted or not)',
    source: 'gitleaks private-key',
    keywords: ['-----BEGIN'],
    re: /-----BEGIN[ A-Z0-9_-]{0,100}PRIVATE KEY(?: BLOCK)?-----/g,
    allowPlaceholders: false,
  },
  {
    id: 'aws_access_key_id',
    description: 'an AWS access key id (AKIA…, ASIA…, ABIA…, ACCA…, A3T…)',
    source: 'gitleaks aws-access-token',
    keywords: ['AKIA', 'ASIA', 'ABIA', 'ACCA', 'A3T'],
    // Not inside a run of its own alphabet (`EURASIA…`); after anything else (`xAKIA…`, `1AKIA…`, `\nAKIA…`), found.
    re: /((?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)(?<![A-Z2-7][\s\S]{4})[A-Z2-7]{16})(?![A-Za-z0-9])/g,
    minEntropy: 3,
  },
  {
    id: 'aws_secret_access_key',
    description: 'a 40-character AWS secret access key next to a name that says so',
    source: 'gitleaks aws-access-token (secret half), generic-api-key',
    lowerKeywords: ['secret'],
    re: /(?:secret[_-]?access[_-]?key|aws[_-]?secret(?:[_-]?key)?)["']?\s{0,3}(?:=|:|=>)\s{0,3}["']?([A-Za-z0-9/+]{40})(?![A-Za-z0-9/+])/gi,
    minEntropy: 3.5,
  },
  {
    id: 'gcp_service_account',
    description: 'a Google Cloud service-account key file (JSON with "type": "service_account")',
    source: 'lanegate (gitleaks finds the key inside through private-key)',
    keywords: ['service_account'],
    re: /"type"\s{0,4}:\s{0,4}"service_account"/g,
    allowPlaceholders: false,
  },
  {
    id: 'gcp_api_key',
    description: 'a Google Cloud API key (AIza…)',
    source: 'gitleaks gcp-api-key',
    keywords: ['AIza'],
    re: new RegExp(`(AIza[A-Za-z0-9_-]{35})${E}`, 'g'),
    minEntropy: 3,
  },
  {
    id: 'azure_storage_key',
    description: 'an Azure storage account key or shared access key in a connection string',
    source: 'gitleaks azure-* (connection strings)',
    lowerKeywords: ['accountkey=', 'sharedaccesskey='],
    re: /(?:AccountKey|SharedAccessKey)=([A-Za-z0-9+/]{30,100}={0,2})(?![A-Za-z0-9+/=])/gi,
    minEntropy: 3.5,
  },
  {
    id: 'azure_client_secret',
    description: 'an Azure AD (Entra) client secret (…Q~…)',
    source: 'gitleaks azure-ad-client-secret',
    keywords: ['Q~'],
    re: /(?<![A-Za-z0-9_~.])([A-Za-z0-9_~.]{3}\dQ~[A-Za-z0-9_~.-]{31,34})(?![A-Za-z0-9_~.-])/g,
    minEntropy: 3,
  },
  {
    id: 'github_token',
    description: 'a GitHub token (ghp_, gho_, ghu_, ghs_, ghr_, github_pat_)',
    source: 'gitleaks github-pat, github-oauth, github-app-token, github-refresh-token, github-fine-grained-pat',
    keywords: ['ghp_', 'gho_', 'ghu_', 'ghs_', 'ghr_', 'github_pat_'],
    re: new RegExp(`((?:gh[pousr]_[A-Za-z0-9]{36,251})|(?:github_pat_[A-Za-z0-9_]{82}))${E}`, 'g'),
    minEntropy: 3,
  },
  {
    id: 'gitlab_token',
    description: 'a GitLab personal, project or group access token (glpat-)',
    source: 'gitleaks gitlab-pat',
    keywords: ['glpat-'],
    re: new RegExp(`(glpat-[A-Za-z0-9_-]{20,64})${E}`, 'g'),
    minEntropy: 3,
  },
  {
    id: 'slack_token',
    description: 'a Slack token (xoxb-, xoxa-, xoxp-, xoxr-, xoxs-, xoxe-)',
    source: 'gitleaks slack-bot-token, slack-user-token, slack-legacy-*',
    keywords: ['xoxb-', 'xoxa-', 'xoxp-', 'xoxr-', 'xoxs-', 'xoxe-'],
    re: new RegExp(`(xox[abeprs]-[A-Za-z0-9-]{10,250})${E}`, 'g'),
    minEntropy: 2.5,
  },
  {
    id: 'stripe_key',
    description: 'a Stripe live secret or restricted key (sk_live_, rk_live_)',
    source: 'gitleaks stripe-access-token',
    keywords: ['sk_live_', 'rk_live_'],
    re: new RegExp(`([sr]k_live_[A-Za-z0-9]{10,99})${E}`, 'g'),
    minEntropy: 2.5,
  },
  {
    id: 'anthropic_key',
    description: 'an Anthropic API or admin key (sk-ant-…)',
    source: 'gitleaks anthropic-api-key, anthropic-admin-api-key',
    keywords: ['sk-ant-'],
    re: new RegExp(`(sk-ant-[a-z]{3,10}\\d{0,3}-[A-Za-z0-9_-]{20,200})${E}`, 'g'),
    minEntropy: 3,
  },
  {
    id: 'openai_key',
    description: 'an OpenAI API key (sk-proj-…, sk-svcacct-…, sk-admin-…, or sk- and 32+ letters and digits)',
    source: 'gitleaks openai-api-key',
    keywords: ['sk-'],
    re: new RegExp(`(sk-(?:(?:proj|svcacct|admin)-[A-Za-z0-9_-]{20,250}|(?<![A-Za-z]sk-)[A-Za-z0-9]{32,250}))${E}`, 'g'),
    minEntropy: 3,
  },
  {
    id: 'jwt',
    description: 'a JSON Web Token (three base64url segments whose first is a JSON header)',
    source: 'gitleaks jwt',
    keywords: ['eyJ'],
    re: new RegExp(`(${at('eyJ')}[A-Za-z0-9_-]{8,}\\.[A-Za-z0-9_-]{2,}\\.[A-Za-z0-9_-]*)${E}`, 'g'),
    verify: (m) => b64urlJson(m.slice(0, m.indexOf('.'))),
    unbounded: true,
  },
  {
    id: 'env_secret',
    description: 'a `.env`-style NAME=value line whose name says it holds a secret',
    source: 'gitleaks generic-api-key (assignment form)',
    keywords: ['='],
    // '=' is found at memchr speed: worth checking before the line-anchored pattern, on text of any length.
    prefilterAlways: true,
    // One line at a time: the name and value alphabets exclude the line break.
    re: /^[ \t]{0,8}(?:export[ \t]{1,4})?([A-Za-z_][A-Za-z0-9_.]{0,80})[ \t]{0,3}=[ \t]{0,3}["']?([^\s"'#]{8,500})/gm,
    minEntropy: 3,
  },
  {
    id: 'generic_secret',
    description: 'a random-looking value right after a name that says it holds a secret (`api_key: …`, `Bearer …`)',
    source: 'gitleaks generic-api-key',
    lowerKeywords: ['secret', 'token', 'passw', 'pwd', 'key', 'credential', 'bearer'],
    // Starts at the word (not at every token, which cost 7 ms a MB of prose); the rest of the name is read back in `accepts`.
    // A `+` reads as the space it stands for in a query string (attack round 13: `Bearer+<value>`).
    re: /(?:secret|token|passw(?:or)?d|api[_.-]?key|private[_.-]?key|access[_.-]?key|credential)[A-Za-z0-9_.-]{0,20}["']?[ \t+]{0,3}(?:=|:|=>)[ \t+]{0,3}["']?([A-Za-z0-9_+/.~-]{16,300}={0,3})|bearer[ \t+]{1,3}([A-Za-z0-9_+/.~-]{16,300}={0,3})/gi,
    minEntropy: 3.5,
  },
];

/** The name a generic match follows: the word it matched and the name characters before it (at most 40). */
const NAME_CHAR = /[A-Za-z0-9_.-]/;
const nameBefore = (text: string, m: RegExpExecArray): string => {
  let from = m.index;
  while (from > 0 && m.index - from < 40 && NAME_CHAR.test(text[from - 1] ?? '')) from -= 1;
  const head = /^[A-Za-z0-9_.-]*/.exec(m[0])?.[0] ?? '';
  return text.slice(from, m.index) + head;
};

/** Whether one match of a rule is a finding: random enough, not a placeholder, verified. Pure. */
export const accepts = (rule: SecretRule, match: RegExpExecArray, text: string): boolean => {
  let value = match[1] ?? match[0];
  if (rule.id === 'env_secret') {
    value = match[2] ?? '';
    if (!isSecretName(match[1] ?? '')) return false;
  } else if (rule.id === 'generic_secret') {
    const bearer = match[2];
    value = bearer ?? match[1] ?? '';
    if (bearer === undefined && !isSecretName(nameBefore(text, match))) return false;
    if (!/\d/.test(value)) return false;
  }
  if (rule.allowPlaceholders !== false && isPlaceholder(value)) return false;
  if (rule.minEntropy !== undefined && shannon(value) < rule.minEntropy) return false;
  return rule.verify ? rule.verify(match[0]) : true;
};
