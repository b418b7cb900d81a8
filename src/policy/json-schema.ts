import { z } from 'zod';
import { policySchema } from './schema.js';

/** The JSON Schema editors use to complete and check policy files, generated from the zod schema. */
export const policyJsonSchema = (): Record<string, unknown> => ({
  ...z.toJSONSchema(policySchema, { io: 'input', unrepresentable: 'any' }),
  $id: 'https://lanegate.invalid/policy.schema.json',
  title: 'lanegate policy',
});
