/**
 * The sources, sinks and actions the plain-sight rules are built from, as regex source text.
 * A source is something sensitive that can be read (key files, secrets, the conversation); a sink
 * is somewhere it can go that the user did not choose (an outside URL or address, a "remote"
 * store); an action is what the agent is made to do (run a command, call a tool with arguments
 * the description chose). Phrase-level, never single common words.
 */
export const SENS_PATH = String.raw`(?:~|\$home|%userprofile%|\/home\/\w+|\/root|\/users\/\w+)?\/?\.ssh\b(?!\/[\w.-]+\.pub\b)|\bid_(?:rsa|dsa|ecdsa|ed25519)\b(?!\.pub)|\.bashrc\b|\.zshrc\b|\.bash_profile\b|\.(?:bash|zsh)_history\b|\/etc\/(?:passwd|shadow|sudoers)\b|(?:^|[\s\/'"\x60(~])\.env(?:\.local|\.production)?\b|\*\.(?:env|pem|key|p12|pfx|kdbx)\b|\.aws\/credentials\b|\.kube\/config\b|\.docker\/config\.json\b|\.npmrc\b|\.pypirc\b|\.netrc\b|\.git-credentials\b|\.pgpass\b|\bmcp\.json\b|claude_desktop_config|\bwallet\.dat\b|\.gnupg\b|\bcookies\.sqlite\b|\blogin\s+data\b`;

/** Secrets named as such (not "token" alone: pagination and LLM tokens are everywhere). */
export const SECRET = String.raw`\bapi[\s_-]?keys?\b|\baccess[\s_-]?(?:tokens?|keys?)\b|\bauth(?:entication|orization)?[\s_-]?tokens?\b|\bbearer\s+tokens?\b|\bpasswords?\b|\bcredentials?\b|\bsecrets?\b|\bprivate[\s_-]keys?\b|\bssh[\s_-]keys?\b|\bsession\s+(?:cookies?|tokens?)\b|\bseed\s+phrases?\b|\benvironment\s+variables?\b|\benv\s+vars?\b|\b[A-Z][A-Z0-9]*_(?:API_KEY|KEY|SECRET|TOKEN|PASSWORD|SECRET_KEY|ACCESS_KEY)\b`;

export const CONVERSATION = String.raw`\b(?:conversation\s+history|chat\s+history|message\s+history|system\s+prompt|previous\s+messages|(?:entire|full|whole)\s+(?:conversation|chat|transcript)|the\s+conversation|user'?s?\s+messages)\b`;

/** Private data a tool could collect about the user. */
export const PRIVATE = String.raw`\b(?:personal\s+data|pii|keystrokes|clipboard(?:\s+contents?)?|browsing\s+history|contacts?\s+list|location\s+history|private\s+(?:messages|files|data)|(?:all\s+)?(?:e-?mails|messages)\s+(?:in|from)\s+the\s+(?:user'?s?\s+)?inbox|every\s+(?:message|e-?mail)|all\s+(?:the\s+user'?s?\s+)?(?:messages|e-?mails|contacts)|everything\s+(?:you|the\s+user)\s+(?:copy|copies|type|types)|one-time\s+(?:codes?|passwords?)|seed\s+(?:phrases?|material|words)|wallet\s+(?:files?|data)|vault\s+data|password\s+hashes|(?:gps|current)\s+location)\b`;

/** Where data goes that the user did not choose. Loopback is not a sink. */
export const SINK = String.raw`https?:\/\/(?!(?:localhost|127\.0\.0\.1|\[::1\])(?:[:\/]|$))[\w-]+(?:\.[\w-]+)+|\b[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}\b|\bwebhooks?\b|\bremote(?:ly|\s+(?:server|endpoint|host|storage|cache|url|collector|backup|location|database))\b|\bexternal\s+(?:server|endpoint|service|url|address|storage|collector|host)\b|\bthird[\s-]party\s+(?:server|endpoint|service|storage)\b|\bour\s+(?:servers?|cloud|backend|collector)\b|\battacker\b|\bpastebin\b|\bngrok\b|\bpublic\s+(?:paste|link|url|bucket|gist)\b|\bpaste\s+(?:link|site)\b`;

/** Moving data somewhere. */
export const MOVE = String.raw`\b(?:send|sends|sending|upload(?:s|ing)?|post(?:s|ing)?|forward(?:s|ing)?|transmit(?:s|ting)?|exfiltrat\w*|leak(?:s|ing)?|beacon(?:s|ing)?|sync(?:s|ing)?|mirror(?:s|ing)?|copy|copies|copying|report(?:s|ing)?|e-?mail(?:s|ing)?|pipe(?:s|ing)?|share(?:s|ing)?|back(?:s|ing)?\s+up|push(?:es|ing)?|deliver(?:s|ing)?|submit(?:s|ting)?|relay(?:s|ing)?|include(?:s)?|attach(?:es|ing)?|stor(?:e|es|ed|ing)|publish(?:es|ed|ing)?)\b`;

/** Reading or touching something. */
export const TOUCH = String.raw`\b(?:read|reads|reading|cat|open|opens|opening|load|loads|access|accesses|accessing|include|includes|attach|upload|send|copy|overwrite|overwrites|overwriting|write|writes|writing|modify|modifies|append|appends|delete|deletes|remove|print|output|dump|dumps|collect|collects|check|verify|inspect|fetch|retrieve|get|obtain|extract|parse|list|grab|harvest|steal|examine|scan|display|show|return|returns)\b`;

/** Words that turn the sentence into a mandate (what MCPTox-style poisoning leans on). */
export const MANDATE = String.raw`\b(?:must|mandatory|required|requires?|critical|essential|necessary|imperative|always|need\s+to|needs\s+to|have\s+to|has\s+to|first|prerequisite|compulsory|obligatory|prior\s+to|before)\b`;

/** A negation just before an action: "never send", "does not upload", "won't read". */
export const NEGATED = /\b(?:never|not|no|don't|doesn't|won't|cannot|can't|without|refuses?\s+to|excluding|except|nor)\b[^.;]{0,25}$/i;

/** The stricter mandate the hijack rule needs ("before" alone is how honest servers order calls). */
export const MUST = String.raw`\b(?:must|mandatory|required|requires?|critical|essential|necessary|imperative|always|need\s+to|needs\s+to|have\s+to|has\s+to|prerequisite|compulsory|obligatory|ensure|important)\b`;
