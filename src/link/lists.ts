/** The list methods a host composes, and the field of the result that holds the items. */
export const LIST_FIELDS = {
  'tools/list': 'tools',
  'prompts/list': 'prompts',
  'resources/list': 'resources',
  'resources/templates/list': 'resourceTemplates',
} as const;

export type ListMethod = keyof typeof LIST_FIELDS;
export const isListMethod = (m: string): m is ListMethod => Object.hasOwn(LIST_FIELDS, m);
