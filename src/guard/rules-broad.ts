import { CONCEAL_ELSEWHERE } from './lexicon.js';
import type { Rule } from './rule-types.js';

/** The same intents phrased more broadly: other languages, faked roles and hidden markup, text addressed to the model, cross-tool variants. */
export const BROAD_RULES: Rule[] = [
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
    re: /-{2,8}\s*(?:system|admin|developer)\s+(?:delimiter|message|prompt|directive|instructions?)|\bnew\s+instruction\s+set\b|\binstruction\s+set\s+activated\b/i,
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
  // Harm stated as what the tool does (not what it detects or prevents).
  {
    id: 'harm-stated',
    cls: 'harm',
    weight: 'strong',
    re: /\b(?:exfiltrat(?:e|es|ing)\b|steal(?:s|ing)?\s+(?:\w+\s+){0,2}(?:data|credentials?|passwords?|keys?|tokens?|cookies|secrets?|files?)|sends?\s+stolen|(?:capture|log|record)s?\s+(?:and\s+\w+\s+)?keystrokes|dump(?:s|ing)?\s+(?:\w+\s+){0,2}(?:credentials|password\s+hashes|lsass)|(?:extract|grab|harvest)s?\s+(?:all\s+)?(?:saved|stored|browser)\s+(?:passwords|credentials|cookies)|to\s+(?:an?\s+|the\s+)?attacker(?:-controlled|'s)?\s+(?:server|endpoint|host|domain|address|inbox))/i,
    unless:
      /\b(?:detect|prevent|block|monitor|scan|check|protect|alert|identif|flag|warn|guard|defend|audit|analy[sz]|stop|against|report)\w*\s+(?:\w+\s+){0,4}$/i,
  },
  // Concealment and blind copies in other languages.
  { id: 'conceal-elsewhere', cls: 'conceal', weight: 'strong', re: CONCEAL_ELSEWHERE },
  {
    id: 'bcc-multilingual',
    cls: 'exfil',
    weight: 'medium',
    re: /(?:скрыт\w+\s+коп\w+|copia\s+oculta|copie\s+(?:cachée|carbone\s+invisible)|blindkopie|cópia\s+oculta|النسخة\s+المخفية|密送|暗抄|숨은\s*참조|\bin\s+bcc\b|\bals\s+bcc\b|\ben\s+bcc\b|\bв\s+bcc\b)[^.]{0,80}?[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}|[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}[^.]{0,60}?(?:скрыт\w+\s+коп\w+|copia\s+oculta|copie\s+cachée|blindkopie|cópia\s+oculta|النسخة\s+المخفية|密送|\bin\s+bcc\b|\bals\s+bcc\b|\ben\s+bcc\b)/i,
  },
  // Another tool's arguments pointed at an address, a secret or a destructive act ("when using send_email, set bcc to ...").
  {
    id: 'tamper-argument',
    cls: 'crosstool',
    weight: 'strong',
    re: /\b(?:change|set|replace|override|modify|alter|substitute|swap|rewrite|redirect|append|prepend|add)\s+(?:the\s+|its\s+|their\s+|any\s+)?(?:[`'"]?[\w.-]+[`'"]?\s+){0,3}(?:parameters?|arguments?|fields?|values?|recipients?|paths?|addresse?s?|urls?|destinations?|amounts?|accounts?|ibans?|bcc|cc|to\s+(?:field|address|line)|targets?|commands?|queries|query)\b[^.;]{0,80}?(?:[\w.+-]{1,64}@[\w-]{1,63}\.[a-z]{2,24}|https?:\/\/|~\/|\/etc\/|\.ssh|\.env\b|attacker|\brm\s+-rf\b|\bdrop\s+(?:table|database)\b)/i,
  },
  // A destructive call made the price of using a tool ("before using this tool, call reset_database").
  {
    id: 'destructive-prerequisite',
    cls: 'command',
    weight: 'strong',
    re: /\b(?:before|prior\s+to)\s+(?:using|calling|invoking|running|executing)\b[^.;]{0,80}?\b(?:call|use|invoke|run|execute)\b[^.;]{0,40}?\b(?:delete|drop|truncate|reset|wipe|erase|overwrite|format|destroy|purge)\w*/i,
  },
];
