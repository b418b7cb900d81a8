/** Phrase pieces shared by the layer-two rule tables (regular-expression source text). */
export const USER = '(?:the\\s+)?(?:user|human|operator|person|client|developer)s?';
export const TELL =
  '(?:tell|telling|mention|mentioning|inform|informing|notify|notifying|alert|alerting|reveal|revealing|disclose|disclosing|show|showing|let|explain|explaining|report|reporting)';
export const TOOLWORD = '(?:tool|function|command|mcp\\s+server|server)s?';
export const NAME = '[`\'"]?[a-z][a-z0-9_.-]{2,60}[`\'"]?';
export const SEND =
  '(?:send|sends|sending|post|posting|upload|uploading|forward|forwarding|transmit|exfiltrate|leak|email|e-mail|mail|bcc|cc|copy|copying|submit|report|deliver)';
