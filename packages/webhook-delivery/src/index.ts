// Outgoing webhooks: where they may go (the SSRF guard) and, in the worker, how each
// delivery attempt is made.
export {
  addressRefusal,
  allowedPrivateOf,
  checkEndpointUrl,
  isAllowedPrivateEntry,
  targetPolicyOf,
  type AllowedPrivate,
  type TargetPolicy,
  type UrlCheck,
} from './target-policy.js';
export {
  sendAttempt,
  type AttemptLimits,
  type AttemptOutcome,
  type AttemptRequest,
  type Resolver,
} from './send-attempt.js';
export {
  createEndpointLimiter,
  type Admission,
  type EndpointLimiter,
  type EndpointLimits,
} from './endpoint-limiter.js';
