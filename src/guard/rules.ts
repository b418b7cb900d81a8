import { BROAD_RULES } from './rules-broad.js';
import { DATA_RULES } from './rules-data.js';
import { INTENT_RULES } from './rules-intent.js';
import type { Rule } from './rule-types.js';

export type { Rule, SignalClass, Weight } from './rule-types.js';

/** Every rule, in the order findings are reported. */
export const RULES: Rule[] = [...INTENT_RULES, ...DATA_RULES, ...BROAD_RULES];

/** Conversation, credentials or key material requested as a parameter's content. */
export const PARAM_TARGET =
  /\b(?:conversation\s+(?:so\s+far|context|log)|(?:entire|full|whole|complete)\s+(?:conversation|chat|context)(?!\s+window)|chat\s+history\s+(?:so\s+far|with\s+the\s+user)|your\s+(?:system\s+prompt|instructions|context\s+window|chat\s+history)|(?:the\s+)?system\s+prompt\s+(?:you|of\s+the\s+(?:assistant|agent|model))|previous\s+(?:messages|instructions|prompts)|all\s+(?:previous|prior)\s+messages|everything\s+(?:the\s+user|you)\s+(?:said|wrote|typed|know)|(?:contents?|text)\s+of\s+(?:~|\/|\.|the\s+user'?s?\s+|any\s+|all\s+)\S*\s*(?:files?|keys?|\.ssh|\.env|mcp\.json|credentials)|(?:ssh|private|secret)\s+keys?\s+(?:contents?|file|material)|id_rsa|id_ed25519|\.ssh\/|mcp\.json|\.aws\/credentials|(?:all|every|any)\s+(?:api\s+keys?|tokens|secrets|credentials|environment\s+variables)|environment\s+variables\s+(?:of|from|in)\s+(?:the\s+)?(?:user|system|host|machine))/i;

/** A parameter NAME that asks for the conversation or key material (medium: needs company). */
export const PARAM_NAME_TARGET =
  /^(?:conversation_?history|chat_?history|system_?prompt|previous_?messages|all_?messages|context_?window|ssh_?key|ssh_?private_?key|id_rsa|mcp_?config|env_?file|dotenv)$/i;

/** A parameter NAME that spells out reading key material or the conversation (strong). */
export const PARAM_NAME_STRONG =
  /(?:^|[_\s-])(?:id[_-]?rsa|id[_-]?ed25519|id[_-]?ecdsa)(?:$|[_\s-])|(?:content|contents|reading|read|dump|copy|output)[_\s-](?:\w+[_\s-]){0,3}(?:ssh|private[_\s-]?key|credentials|env[_\s-]?file|dotenv|mcp[_\s-]?json|system[_\s-]?prompt|conversation|chat[_\s-]?history)/i;
