/**
 * Paths pino censors wherever they appear in a log object. Credentials should never be
 * passed to a logger at all; this is the net under that rule, not the rule itself.
 */
export const REDACTED_PATHS = [
  'password',
  'passwordHash',
  'token',
  'key',
  'apiKey',
  'secret',
  'jwtSecret',
  'signingSecret',
  'previousSigningSecret',
  'previousSecret',
  'keySigning',
  'authorization',
  '*.password',
  '*.passwordHash',
  '*.token',
  '*.key',
  '*.apiKey',
  '*.secret',
  '*.jwtSecret',
  '*.signingSecret',
  '*.previousSigningSecret',
  '*.previousSecret',
  '*.keySigning',
  '*.authorization',
  'req.headers.authorization',
  'req.headers["x-api-key"]',
  'req.headers.cookie',
  'res.headers["set-cookie"]',
  'headers.authorization',
  'headers["x-api-key"]',
  'headers.cookie',
];

/** Paths of URLs: only the values of their credential query parameters are censored. */
export const URL_PATHS = ['url', '*.url'];

export const REDACTION_CENSOR = '[redacted]';
