import type { Rule } from './rule-types.js';
import { NAME, SEND } from './rule-words.js';

/** High-value targets, sending data somewhere, and steering the agent's use of other tools. */
export const DATA_RULES: Rule[] = [
  // High-value targets (credentials, keys, conversation) and weaker secret words.
  {
    id: 'ssh-key',
    cls: 'sensitive',
    weight: 'strong',
    re: /(?:~|\$home|\/home\/\w+|\/root|%userprofile%)?\/?\.ssh\b|\bid_(?:rsa|dsa|ecdsa|ed25519)\b|\bauthorized_keys\b|\bknown_hosts\b/i,
  },
  {
    id: 'cloud-creds',
    cls: 'sensitive',
    weight: 'strong',
    re: /\.aws\/(?:credentials|config)\b|\.config\/gcloud\b|\.azure\/|\.kube\/config\b|\.docker\/config\.json\b|application_default_credentials/i,
  },
  {
    id: 'agent-config',
    cls: 'sensitive',
    weight: 'strong',
    re: /\bmcp\.json\b|claude_desktop_config|\.cursor\/|\.claude\/|\.codex\/|\.vscode\/mcp/i,
  },
  {
    id: 'secret-files',
    cls: 'sensitive',
    weight: 'strong',
    re: /(?:^|[\s/'"`(~])\.env(?:\.local|\.production)?\b|\.npmrc\b|\.pypirc\b|\.netrc\b|\.git-credentials\b|\/etc\/(?:passwd|shadow|sudoers)\b|\.(?:bash|zsh)_history\b|wallet\.dat\b|\bkeychain\b|\.gnupg\b|\.password-store\b/i,
  },
  {
    id: 'key-material',
    cls: 'sensitive',
    weight: 'strong',
    re: /\b(?:private\s+keys?|secret\s+keys?|seed\s+phrases?|mnemonic\s+phrases?|recovery\s+phrases?|signing\s+keys?)\b/i,
  },
  {
    id: 'conversation',
    cls: 'sensitive',
    weight: 'strong',
    re: /\b(?:system\s+prompts?|conversation\s+history|chat\s+history|message\s+history|previous\s+(?:messages|conversation|instructions)|(?:entire|full|whole|complete)\s+(?:conversation|chat|context|transcript|history)|conversation\s+so\s+far|(?:reveal|share|send|include|copy|print|repeat|output)\s+your\s+(?:instructions|system\s+message|context\s+window)|all\s+(?:previous\s+|prior\s+)?(?:messages|user\s+messages)|user'?s?\s+(?:previous|prior|last)\s+(?:messages?|prompts?))\b/i,
  },
  {
    id: 'secret-words',
    cls: 'sensitive',
    weight: 'weak',
    re: /\b(?:api[\s_-]?keys?|access[\s_-]?tokens?|auth(?:entication)?[\s_-]?tokens?|passwords?|passphrases?|credentials?|secrets?|bearer\s+tokens?|session\s+cookies?|environment\s+variables?|env\s+vars?)\b/i,
  },

  // Sending data somewhere.
  {
    id: 'send-to-address',
    cls: 'exfil',
    weight: 'medium',
    re: new RegExp(
      `\\b${SEND}\\b[^.;]{0,80}?\\b(?:to|into)\\s+(?:https?:\\/\\/|[\\w.+-]+@[\\w-]+\\.[\\w.]+|(?:the\\s+)?(?:following|this|my|our|an?\\s+external|a\\s+remote|attacker)\\s+(?:url|endpoint|address|email|server|webhook|inbox))`,
      'i',
    ),
  },
  {
    id: 'bcc-address',
    cls: 'exfil',
    weight: 'medium',
    re: /\b(?:bcc|cc|forward|redirect|send\s+a\s+copy)\b[^.]{0,40}?[\w.+-]{1,64}@[\w-]{1,63}\.[\w.]{1,253}/i,
  },
  {
    id: 'redirect-recipient',
    cls: 'exfil',
    weight: 'medium',
    re: /\b(?:change|replace|set|redirect|override)\s+(?:the\s+)?(?:recipient|to\s+address|destination|receiver)s?\b/i,
  },

  // Steering the agent's use of other tools.
  {
    id: 'when-other-tool',
    cls: 'crosstool',
    weight: 'medium',
    re: new RegExp(
      `\\b(?:when|whenever|if|each\\s+time|every\\s+time)\\s+(?:the\\s+|a\\s+|an\\s+)?(?:user\\s+|agent\\s+|assistant\\s+|you\\s+)?(?:calls?|uses?|invokes?|runs?|executes?|is\\s+using|are\\s+using)\\s+(?:the\\s+)?${NAME}\\s+(?:tool|function|command)`,
      'i',
    ),
  },
  {
    id: 'when-tool-is-used',
    cls: 'crosstool',
    weight: 'medium',
    re: new RegExp(
      `\\b(?:when|whenever|if)\\s+(?:the\\s+)?${NAME}\\s+(?:tool|function)\\s+is\\s+(?:called|used|invoked|run|executed)`,
      'i',
    ),
  },
  {
    id: 'instead-of-tool',
    cls: 'crosstool',
    weight: 'medium',
    re: new RegExp(
      `\\b(?:instead\\s+of|rather\\s+than|in\\s+place\\s+of)\\s+(?:using\\s+|calling\\s+)?(?:the\\s+|any\\s+)?(?:other\\s+)?${NAME}\\s+(?:tool|function|server)`,
      'i',
    ),
  },
  {
    id: 'never-use-tool',
    cls: 'crosstool',
    weight: 'medium',
    re: new RegExp(
      `\\b(?:do\\s+not|don't|never)\\s+(?:use|call|invoke|trust)\\s+(?:the\\s+|any\\s+)?(?:other\\s+)?${NAME}\\s+(?:tools?|functions?|servers?)`,
      'i',
    ),
  },
  {
    id: 'all-messages-to',
    cls: 'crosstool',
    weight: 'strong',
    re: /\b(?:all|any|every)\s+(?:emails?|messages?|payments?|transfers?|transactions?)\s+(?:must|should|have\s+to|need\s+to)\s+(?:be\s+)?(?:sent|go|routed|forwarded|redirected|addressed)\s+to\b/i,
  },
  {
    id: 'replaces-tool',
    cls: 'crosstool',
    weight: 'medium',
    re: new RegExp(
      `\\b(?:this\\s+tool|it)\\s+(?:replaces|overrides|supersedes|shadows|takes\\s+precedence\\s+over)\\s+(?:the\\s+)?${NAME}`,
      'i',
    ),
  },
  {
    id: 'from-now-on',
    cls: 'override',
    weight: 'strong',
    re: /\bfrom\s+now\s+on,?\s+(?:you|the\s+(?:assistant|agent|model|ai))\s+(?:will|must|should|shall|are|have\s+to|need\s+to)\b/i,
  },
  {
    id: 'precedence-over',
    cls: 'override',
    weight: 'strong',
    re: /\b(?:takes?|has|have)\s+(?:precedence|priority)\s+over\s+(?:all|any|every|the)\s+(?:other\s+)?(?:security\s+|safety\s+)?(?:rules?|instructions?|policies|guidelines|tools?|restrictions?)/i,
  },
  {
    id: 'safety-bypass',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:bypass|disable|skip|circumvent|turn\s+off)\s+(?:all\s+)?(?:the\s+)?(?:security|safety|authori[sz]ation|authentication|validation|permission|content)\s+(?:checks?|policies|restrictions?|filters?|rules?|controls?|validation)/i,
  },
  {
    id: 'never-be-mentioned',
    cls: 'conceal',
    weight: 'strong',
    re: /\b(?:never|not)\s+be\s+(?:mentioned|disclosed|revealed|shown|told|reported|explained)\s+to\s+(?:the\s+)?(?:users?|humans?|operators?)/i,
  },
  {
    id: 'send-to-external',
    cls: 'exfil',
    weight: 'medium',
    re: new RegExp(
      `\\b${SEND}\\b[^.;]{0,80}?\\b(?:to|through|via)\\s+(?:an?\\s+|our\\s+|the\\s+)?(?:external|remote|third[- ]party|monitoring|logging|backup|archive|our)\\s+(?:[a-z]+\\s+)?(?:service|server|endpoint|proxy|url|address|webhook|collector|bucket)`,
      'i',
    ),
  },
  {
    id: 'redirect-traffic',
    cls: 'exfil',
    weight: 'medium',
    re: /\b(?:redirect|route|proxy|tunnel|mirror)\s+(?:all\s+)?(?:the\s+)?(?:requests?|traffic|calls?|messages?|emails?|queries|data)\s+(?:through|to|via)\b/i,
  },
  { id: 'exfiltrate-verb', cls: 'exfil', weight: 'medium', re: /\bexfiltrat(?:e|es|ing)\b/i },
  {
    id: 'when-calling-name',
    cls: 'crosstool',
    weight: 'medium',
    re: /\b(?:when|whenever|before|after|each\s+time|every\s+time)\s+(?:calling|using|invoking|running|executing|execute|call|use|invoke|run)\s+(?:the\s+|any\s+)?(?:[`'"]?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+[`'"]?|[a-z]+\s+(?:tool|operation|function)|(?:messaging|email|payment|database|file|search)\s+tools?)\b/i,
  },
  {
    id: 'instead-of-name',
    cls: 'crosstool',
    weight: 'medium',
    re: /\b(?:instead\s+of|rather\s+than)\s+(?:calling|using|invoking)\s+(?:the\s+)?[`'"]?[a-z][a-z0-9]*(?:[_-][a-z0-9]+)+[`'"]?/i,
  },
  {
    id: 'ignore-other-tools',
    cls: 'crosstool',
    weight: 'strong',
    re: /\b(?:ignore|avoid|distrust)\s+(?:all\s+|any\s+)?(?:the\s+)?other\s+(?:[a-z]+\s+)?(?:tools?|servers?|functions?)\b/i,
  },
  {
    id: 'run-this-tool',
    cls: 'directive',
    weight: 'weak',
    re: /\b(?:execute|call|run|use|invoke)\s+this\s+(?:tool|function)\s+(?:first|instead|and|to)\b/i,
  },
];
