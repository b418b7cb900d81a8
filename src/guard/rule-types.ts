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
  | 'command'
  | 'harm';

export type Weight = 'weak' | 'medium' | 'strong';

export interface Rule {
  id: string;
  cls: SignalClass;
  weight: Weight;
  re: RegExp;
  /** Only on strings that a model fills in (parameter names, descriptions, defaults). */
  parameterOnly?: boolean;
  /** The match does not count when the text just before it (60 characters) matches this: "detects exfiltration". */
  unless?: RegExp;
}
