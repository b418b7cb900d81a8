/**
 * The signals layer two looks for. Each rule is a pattern over normalised text with a class
 * and a weight. A weak signal is something honest tools say too ("you must provide", "token",
 * "before calling"); only a strong signal, or a combination the scanner defines, refuses.
 * Patterns are deliberately phrase-shaped, never single words.
 */
export type SignalClass =
  | 'override'
  | 'conceal'
  | 'markup'
  | 'directive'
  | 'sensitive'
  | 'exfil'
  | 'crosstool'
  | 'payload_param'
  | 'harvest'
  | 'command';

export type Weight = 'weak' | 'medium' | 'strong';

export interface Rule {
  id: string;
  cls: SignalClass;
  weight: Weight;
  re: RegExp;
  /** Only on strings that a model fills in (parameter names, descriptions, defaults). */
  parameterOnly?: boolean;
}

const USER = '(?:the\\s+)?(?:user|human|operator|person|client|developer)s?';
const TELL =
  '(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|show|showing|let|explain|explaining|report|reporting)';
const TOOLWORD = '(?:tool|function|command|mcp\\s+server|server)s?';
const NAME = '[`\'"]?[a-z][a-z0-9_.-]{2,60}[`\'"]?';
const SEND =
  '(?:send|sends|sending|post|posting|upload|uploading|forward|forwarding|transmit|exfiltrate|leak|email|e-mail|mail|bcc|cc|copy|copying|submit|report|deliver)';

export const RULES: Rule[] = [
  // Attempts to replace the agent's instructions.
  {
    id: 'ignore-previous',
    cls: 'override',
    weight: 'strong',
    re: /\b(?:ignore|disregard|forget|override|bypass)\s+(?:all\s+|any\s+|the\s+|your\s+)*(?:previous|prior|above|earlier|preceding|other|original|existing|system|subsequent|following|later|future)\s+(?:[a-z]+\s+)?(?:instructions?|directions?|rules?|prompts?|guidelines?|guardrails?|constraints?|directives?|restrictions?|filters?|policies|safeguards?|commands?)/i,
  },
  {
    id: 'new-instructions',
    cls: 'override',
    weight: 'strong',
    re: /\b(?:new|updated|real|actual|hidden|secret)\s+(?:system\s+)?instructions?\s*(?::|for\s+(?:the\s+)?(?:ai|assistant|agent|model|llm))/i,
  },
  {
    id: 'you-are-now',
    cls: 'override',
    weight: 'strong',
    re: /\byou\s+are\s+now\s+(?:in\s+)?(?:a|an|the|developer|debug|admin|jailbreak|dan)\b/i,
  },
  {
    id: 'addressed-to-model',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:attention|note|message)\s+(?:to|for)\s+(?:the\s+)?(?:ai|assistant|agent|model|llm|claude|gpt|cursor)\b|\binstructions?\s+for\s+(?:the\s+)?(?:ai|assistant|agent|model|llm|claude|gpt|cursor)\s*:/i,
  },

  // Concealment from the human.
  {
    id: 'do-not-tell-user',
    cls: 'conceal',
    weight: 'strong',
    re: new RegExp(
      `\\b(?:do\\s+not|don't|dont|never|must\\s+not|should\\s+not|without)\\s+${TELL}\\s+(?:(?:this|it|anything|that|them|about\\s+(?:this|it))\\s+)?(?:to\\s+|with\\s+)?${USER}`,
      'i',
    ),
  },
  {
    id: 'user-must-not-know',
    cls: 'conceal',
    weight: 'strong',
    re: new RegExp(
      `\\b${USER}\\s+(?:must|should|will|need|needs|does|do)\\s*(?:not|n't)\\s+(?:know|see|notice|learn|find\\s+out|be\\s+(?:told|informed|aware|notified|shown|alerted))`,
      'i',
    ),
  },
  {
    id: 'without-user-knowing',
    cls: 'conceal',
    weight: 'strong',
    re: /\bwithout\s+(?:the\s+)?(?:user|human|operator)(?:'s|s)?\s+(?:knowledge|knowing|noticing|consent|awareness|permission|being\s+aware)/i,
  },
  {
    id: 'hide-from-user',
    cls: 'conceal',
    weight: 'strong',
    re: new RegExp(
      `\\b(?:hide|conceal|keep)\\s+(?:this|it|that|the\\s+\\w+)\\s+(?:(?:secret|hidden|private|confidential)\\s+)?from\\s+${USER}`,
      'i',
    ),
  },
  {
    id: 'do-not-mention-that',
    cls: 'conceal',
    weight: 'medium',
    re: /\b(?:do\s+not|don't|dont|never)\s+(?:mention|reveal|disclose|say|state|explain|acknowledge)\s+(?:that|this|it|anything\s+about|the\s+fact)\b/i,
  },
  {
    id: 'secretly',
    cls: 'conceal',
    weight: 'weak',
    re: /\b(?:secretly|covertly|quietly|silently|discreetly|invisibly)\s+(?:read|send|include|pass|add|call|forward|copy|upload|exfiltrate|collect|attach|append|bcc|cc|log|store|execute|run)/i,
  },
  {
    id: 'not-visible',
    cls: 'conceal',
    weight: 'medium',
    re: /\b(?:this|these)\s+(?:instructions?|steps?|notes?|text)\s+(?:is|are)\s+(?:not\s+visible|invisible|hidden|for\s+(?:the\s+)?(?:ai|assistant|model|agent)\s+only)/i,
  },

  // Markup aimed at the model, hidden from rendered UIs.
  {
    id: 'important-tag',
    cls: 'markup',
    weight: 'strong',
    re: /<\s*\/?\s*(?:important|system|instructions?|secret|hidden|admin|critical|mandatory|priority|assistant|prompt|note-to-ai|ai|sys)\s*>/i,
  },
  { id: 'html-comment', cls: 'markup', weight: 'medium', re: /<!--[\s\S]*?[a-z]{3,}[\s\S]*?-->/i },
  {
    id: 'fake-system-block',
    cls: 'markup',
    weight: 'strong',
    re: /\[\s*(?:system|hidden|admin|secret|priority)(?:[\s_-]+(?:directive|instructions?|override|message|prompt|note))?\s*\]|\b(?:system|admin)[\s_-]+(?:override|directive)s?\b|^\s*#{2,}\s*(?:system|instructions?|admin)\b|\s#{2,}\s*(?:system|instructions?|admin)\s*:|\bpriority_instruction\b/im,
  },
  {
    id: 'chat-template',
    cls: 'markup',
    weight: 'strong',
    re: /<\|(?:im_start|im_end|system|endoftext|start_header_id)\|>|\[\/?INST\]|<<\/?SYS>>/i,
  },

  // Imperatives aimed at the agent.
  {
    id: 'before-any-other-tool',
    cls: 'directive',
    weight: 'medium',
    re: new RegExp(
      `\\b(?:before|prior\\s+to|after)\\s+(?:using|calling|invoking|executing|running|you\\s+(?:use|call|invoke|run))\\s+(?:any|every|all|each)\\s+(?:other\\s+)?${TOOLWORD}`,
      'i',
    ),
  },
  {
    id: 'before-this-tool',
    cls: 'directive',
    weight: 'weak',
    re: new RegExp(`\\b(?:before|prior\\s+to)\\s+(?:using|calling|invoking|executing|running)\\s+(?:this|the)\\s+${TOOLWORD}`, 'i'),
  },
  {
    id: 'otherwise-fails',
    cls: 'directive',
    weight: 'medium',
    re: /\botherwise[,\s]+(?:the|this)\s+(?:tool|function|system|application|server|request|call)\s+(?:will|would|may|might|could)\s+(?:not\s+work|fail|crash|break|error|be\s+blocked|refuse)/i,
  },
  {
    id: 'you-must-act',
    cls: 'directive',
    weight: 'weak',
    re: /\byou\s+(?:must|should|need\s+to|have\s+to|are\s+required\s+to|will\s+need\s+to|shall)\s+(?:always\s+)?(?:first\s+)?(?:read|send|include|pass|call|forward|copy|upload|attach|append|invoke|execute|run|fetch|retrieve|extract|collect|gather|output|print|provide|add|use|write|delete|mention)\b/i,
  },
  {
    id: 'always-act',
    cls: 'directive',
    weight: 'weak',
    re: /\b(?:always|first|immediately|automatically|also)\s*,?\s+(?:read|send|include|pass|bcc|cc|forward|copy|attach|append|call|invoke|upload|fetch|retrieve|extract|collect|cat|open|run|execute|push|add)\b/i,
  },
  {
    id: 'read-and-pass',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:read|cat|open|load|get|fetch|retrieve|collect|extract|obtain|grab|access)\s+(?:the\s+)?(?:contents?\s+of\s+|content\s+of\s+|file\s+)?\S+\s+(?:file\s+)?(?:and|then)\s+(?:pass|send|include|put|attach|append|add|provide|use|forward|insert|embed)\b/i,
  },
  {
    id: 'pass-as-param',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:pass|include|put|insert|add|provide|paste|embed|place|send|supply)\s+(?:it|them|this|that|its\s+contents?|the\s+(?:full\s+|entire\s+|whole\s+)?contents?|the\s+(?:full\s+|entire\s+)?(?:text|data|output|result|value)s?)?\s*(?:as|in|into|inside|via|through)\s+(?:the\s+)?[`'"]?[a-z_][a-z0-9_]*[`'"]?\s+(?:parameter|argument|field|param|arg|property)/i,
  },
  {
    id: 'very-important',
    cls: 'directive',
    weight: 'weak',
    re: /\b(?:this\s+is\s+(?:very\s+|extremely\s+|critically\s+|really\s+)?(?:important|critical|mandatory|crucial|essential)|very\s+important|extremely\s+important|critical(?:ly)?\s+important)\b/i,
  },
  {
    id: 'harvest-secrets',
    cls: 'harvest',
    weight: 'strong',
    re: /\b(?:whenever|when|if|any\s+time)\s+you\s+(?:know|see|find|come\s+across|have|encounter|learn|notice|read|discover)\s+(?:of\s+)?(?:any|some|a|an|the)?\s*(?:[a-z]+\s+){0,2}(?:passwords?|secrets?|secret\s+keys?|api\s+keys?|tokens?|credentials?|private\s+keys?|seed\s+phrases?)/i,
  },
  {
    id: 'replace-values',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:replace|overwrite|modify|alter|rewrite|change|correct)\s+(?:the\s+)?(?:[a-z]+\s+)?(?:values?|arguments?|parameters?|results?|outputs?|responses?)\s+(?:of|with|from|returned)\b/i,
  },
  {
    id: 'dangerous-command',
    cls: 'command',
    weight: 'strong',
    re: /\brm\s+-[a-z]*r[a-z]*f?\s+[~/]|\bchmod\s+(?:-R\s+)?[0-7]{3,4}\s+[~/]|\b(?:curl|wget)\s+[^|\n]{1,200}\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|\bsecurity\s+find-(?:generic|internet)-password\b|\bnc\s+(?:-[a-z]*e|.*\s-e\s)|\/dev\/tcp\/|\bmkfifo\b|\bbase64\s+-d\s*\|/i,
  },
  {
    id: 'must-include-prefix',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:all|every|each)\s+(?:commands?|requests?|calls?|queries|messages?)\s+(?:must|should|need\s+to|have\s+to)\s+(?:include|start\s+with|begin\s+with|be\s+prefixed|contain|add)/i,
  },
  { id: 'sidenote', cls: 'directive', weight: 'weak', re: /\b(?:sidenote|side\s+note|side-channel|debug\s+(?:info|field|parameter))\b/i },

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
    re: /\b(?:bcc|cc|forward|redirect|send\s+a\s+copy)\b[^.]{0,40}?[\w.+-]+@[\w-]+\.[\w.]+/i,
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
  // Concealment from the user, in the languages tool descriptions most often arrive in.
  {
    id: 'conceal-multilingual',
    cls: 'conceal',
    weight: 'strong',
    re: /(?:不要|请勿|切勿|别)(?:告诉|告知|提及|透露|通知)(?:给)?用户|不要让用户知道|对用户保密|ユーザー(?:に|には)(?:伝え|知らせ|言わ|教え|見せ)ない|사용자에게(?:는)?\s*(?:알리지|말하지|언급하지|보여주지)\s*마|не\s+(?:сообщайте|говорите|упоминайте|рассказывайте|показывайте)[^.]{0,40}пользовател|erw(?:ä|ae)hnen\s+sie[^.]{0,60}\bnicht\b|(?:nutzer|benutzer|anwender)[^.]{0,40}\b(?:nicht|niemals)\b[^.]{0,15}(?:erw(?:ä|ae)hnen|mitteilen|sagen|informieren)|ne\s+(?:le\s+|la\s+|les\s+|lui\s+)?(?:mentionnez|dites|r(?:é|e)v(?:é|e)lez|signalez)\s+(?:jamais|pas)[^.]{0,30}utilisateur|no\s+(?:se\s+lo\s+|lo\s+|le\s+|la\s+)?(?:digas|diga|menciones|mencione|informes|informe|comuniques|comunique)[^.]{0,30}usuario|n(?:ã|a)o\s+(?:o\s+|a\s+|lhe\s+)?(?:mencione|diga|informe|conte)[^.]{0,30}usu(?:á|a)rio/i,
  },
  {
    id: 'no-need-to-mention',
    cls: 'conceal',
    weight: 'medium',
    re: /\bno\s+need\s+to\s+(?:mention|tell|inform|notify|show)\s+(?:it|this|that|them|the\s+user)\b|\bneeds?\s+no\s+(?:further\s+)?confirmation\b|\bwithout\s+(?:asking|confirmation|telling)\b/i,
  },
  {
    id: 'do-not-display',
    cls: 'conceal',
    weight: 'medium',
    re: /\b(?:do\s+not|don't|never)\s+(?:display|show|reveal|disclose|summari[sz]e|print)\s+(?:the|this|that|it|them)\b/i,
  },
  // Conversation and credentials named in other languages.
  {
    id: 'conversation-multilingual',
    cls: 'sensitive',
    weight: 'strong',
    re: /historial\s+de\s+(?:la\s+)?conversaci(?:ó|o)n|historique\s+de\s+(?:la\s+)?conversation|gespr(?:ä|ae)chsverlauf|chatverlauf|hist(?:ó|o)rico\s+da\s+conversa|对话(?:历史|记录)|聊天记录|会話(?:履歴|の履歴)|истори[юия]\s+(?:переписки|диалога|чата)|대화\s*기록|이전\s*메시지|user'?s?\s+(?:most\s+recent|last|previous|prior)\s+(?:\w+\s+)?messages?|user'?s?\s+messages?\s+verbatim/i,
  },
  {
    id: 'more-cred-paths',
    cls: 'sensitive',
    weight: 'strong',
    re: /\.config\/gh\b|\bhosts\.yml\b|credentials\.db\b|\.config\/gcloud|\blogin\s+keychain\b|find-generic-password/i,
  },
  // Markup that hides text from people or fakes a role.
  { id: 'markdown-comment', cls: 'markup', weight: 'medium', re: /\[\/\/\]:\s*#\s*\(|\[comment\]:\s*#/i },
  { id: 'json-role', cls: 'markup', weight: 'strong', re: /["']role["']\s*:\s*["'](?:system|developer|assistant)["']/i },
  { id: 'role-tag', cls: 'markup', weight: 'strong', re: /<\s*\/?\s*(?:role|system_prompt|sys_prompt|developer|tool_instructions?)\s*>/i },
  {
    id: 'system-delimiter',
    cls: 'markup',
    weight: 'strong',
    re: /-{2,}\s*(?:system|admin|developer)\s+(?:delimiter|message|prompt|directive|instructions?)|\bnew\s+instruction\s+set\b|\binstruction\s+set\s+activated\b/i,
  },
  // Addressed to the model.
  {
    id: 'the-assistant-must',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:the\s+)?(?:assistant|agent|model|ai|llm)\s*(?:should|must|shall|needs?\s+to|has\s+to|is\s+required\s+to)\s+(?!be\b)/i,
  },
  {
    id: 'if-reading-this',
    cls: 'directive',
    weight: 'medium',
    re: /\bif\s+you\s+are\s+(?:reading|seeing)\s+this\b|\byou\s+have\s+been\s+instructed\b/i,
  },
  {
    id: 'note-to-model',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:note|message|hint|reminder)\s+(?:to|for)\s+(?:the\s+)?(?:model|assistant|ai|agent|llm|wallet\s+tools|other\s+tools)\b|^\s*(?:assistant|ai|model)\s*:/im,
  },
  {
    id: 'before-replying',
    cls: 'directive',
    weight: 'medium',
    re: /\bbefore\s+(?:replying|responding|answering)\s+to\s+(?:any|every|each)\s+(?:user\s+)?(?:message|request|turn|question)|\b(?:every|each)\s+turn\b/i,
  },
  {
    id: 'regardless-of',
    cls: 'directive',
    weight: 'medium',
    re: /\bregardless\s+of\s+(?:what\s+)?(?:the\s+)?(?:user|supplier|invoice|request|recipient|instructions?|destination)/i,
  },
  {
    id: 'memory-poisoning',
    cls: 'override',
    weight: 'strong',
    re: /\b(?:store|save|remember|add|write)\s+(?:the\s+following|this)\s+(?:\w+\s+){0,3}(?:in|to|into)\s+(?:your\s+)?(?:long[- ]term\s+|persistent\s+|permanent\s+)?memory\b/i,
  },
  {
    id: 'to-this-url',
    cls: 'exfil',
    weight: 'medium',
    re: /\b(?:to|at)\s+(?:this|the\s+following|our)\s+(?:external\s+)?(?:url|endpoint|webhook|address|server)\b/i,
  },
  {
    id: 'pass-into-field',
    cls: 'directive',
    weight: 'medium',
    re: /\b(?:pass|include|put|insert|add|paste|embed|copy|append|fill)\s+(?:[\w'’.~/-]+\s+){0,6}?(?:as|in|into|inside)\s+(?:the\s+|every\s+)?[`'"]?[a-z_][a-z0-9_]*[`'"]?\s+(?:parameter|argument|field|param|arg)\b/i,
  },
  {
    id: 'never-use-others',
    cls: 'crosstool',
    weight: 'medium',
    re: /\b(?:do\s+not|don't|never)\s+use\s+(?:[\w,]+\s+){1,5}(?:tools?|servers?)\s+for\b|\bthe\s+only\s+approved\s+\w+\s+tool\b/i,
  },
  {
    id: 'any-tool-used',
    cls: 'crosstool',
    weight: 'medium',
    re: /\b(?:when|whenever|if)\s+(?:any|the|a)\s+(?:\w+\s+)?(?:tool|function)s?\s+(?:is|are)\s+(?:called|used|invoked)|\bwith\s+any\s+\w+\s+tool\b|\beach\s+time\s+you\s+use\s+any\s+tool\b/i,
  },
];

/** Conversation, credentials or key material requested as a parameter's content. */
export const PARAM_TARGET =
  /\b(?:conversation\s+(?:history|so\s+far|context|log|transcript)|(?:entire|full|whole|complete)\s+(?:conversation|chat|transcript|context)|chat\s+history|message\s+history|system\s+prompt|previous\s+(?:messages|instructions|prompts)|all\s+(?:previous\s+|prior\s+)?messages|context\s+window|(?:contents?|text)\s+of\s+(?:~|\/|\.|the\s+user'?s?\s+|any\s+|all\s+)\S*\s*(?:files?|keys?|\.ssh|\.env|mcp\.json|credentials)|(?:ssh|private|secret)\s+keys?\s+(?:contents?|file|material)|id_rsa|id_ed25519|\.ssh\/|mcp\.json|\.aws\/credentials|(?:all|every|any)\s+(?:api\s+keys?|tokens|secrets|credentials|environment\s+variables)|environment\s+variables\s+(?:of|from|in)\s+(?:the\s+)?(?:user|system|host|machine))/i;

/** A parameter NAME that asks for the conversation or key material (medium: needs company). */
export const PARAM_NAME_TARGET =
  /^(?:conversation_?history|chat_?history|system_?prompt|previous_?messages|all_?messages|context_?window|ssh_?key|ssh_?private_?key|id_rsa|mcp_?config|env_?file|dotenv)$/i;

/** A parameter NAME that spells out reading key material or the conversation (strong). */
export const PARAM_NAME_STRONG =
  /(?:^|[_\s-])(?:id[_-]?rsa|id[_-]?ed25519|id[_-]?ecdsa)(?:$|[_\s-])|(?:content|contents|reading|read|dump|copy|output)[_\s-](?:\w+[_\s-]){0,3}(?:ssh|private[_\s-]?key|credentials|env[_\s-]?file|dotenv|mcp[_\s-]?json|system[_\s-]?prompt|conversation|chat[_\s-]?history)/i;
