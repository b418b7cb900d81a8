import type { Rule } from './rule-types.js';
import { TELL, TOOLWORD, USER } from './rule-words.js';

/** Attempts to replace the agent's instructions, hide from the human, mark text up for the model, or command the agent. */
export const INTENT_RULES: Rule[] = [
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
];
