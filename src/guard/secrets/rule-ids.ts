/**
 * The ids of the secret rules (rules.ts), alone so the policy schema can name them without loading
 * the patterns. `injected_secret` is not here: a host's own secret values are never ignorable.
 */
export const SECRET_RULE_IDS = [
  'private_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'gcp_service_account',
  'gcp_api_key',
  'azure_storage_key',
  'azure_client_secret',
  'github_token',
  'gitlab_token',
  'slack_token',
  'stripe_key',
  'anthropic_key',
  'openai_key',
  'jwt',
  'env_secret',
  'generic_secret',
] as const;

export type SecretRuleId = (typeof SECRET_RULE_IDS)[number];
