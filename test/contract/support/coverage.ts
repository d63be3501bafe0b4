// Which test file fuzzes which operation of the document. methods-and-paths.test.ts holds
// this table to the served document and to Fastify's route table: an operation added to
// the API without a line here fails the suite, and so does a line whose operation is gone.

export const GROUPS = {
  reads: [
    'GET /api/articles',
    'GET /api/articles/{slug}',
    'GET /api/highlights',
    'GET /api/categories',
    'GET /api/event-types',
    'GET /problems/{type}',
    'GET /health/live',
    'GET /health/ready',
    'GET /metrics',
  ],
  'auth-and-keys': [
    'POST /api/auth/register',
    'POST /api/auth/login',
    'GET /api/auth/me',
    'POST /api/auth/me/erasure',
    'POST /api/webhooks/api-keys',
    'GET /api/webhooks/api-keys',
    'PATCH /api/webhooks/api-keys/{id}',
    'POST /api/webhooks/api-keys/{id}/signing-secret',
    'DELETE /api/webhooks/api-keys/{id}',
  ],
  endpoints: [
    'POST /api/webhooks/endpoints',
    'GET /api/webhooks/endpoints',
    'GET /api/webhooks/endpoints/{id}',
    'PATCH /api/webhooks/endpoints/{id}',
    'POST /api/webhooks/endpoints/{id}/secret',
    'DELETE /api/webhooks/endpoints/{id}',
    'POST /api/webhooks/endpoints/{id}/pause',
    'POST /api/webhooks/endpoints/{id}/resume',
    'POST /api/webhooks/endpoints/{id}/test',
    'GET /api/webhooks/endpoints/{id}/deliveries',
    'POST /api/webhooks/endpoints/{id}/deliveries/{deliveryId}/resend',
  ],
  content: [
    'POST /api/webhooks/content',
    'POST /api/webhooks/content/batch',
    'GET /api/webhooks/content',
    'GET /api/webhooks/content/{id}',
  ],
  admin: [
    'POST /api/admin/session',
    'DELETE /api/admin/session',
    'GET /api/admin/queue',
    'GET /api/admin/storage',
    'POST /api/admin/queue/pause',
    'POST /api/admin/queue/resume',
    'GET /api/admin/events',
    'GET /api/admin/events/{id}',
    'POST /api/admin/events/{id}/retry',
    'POST /api/admin/events/retry',
    'POST /api/admin/events/retry/preview',
    'GET /api/admin/endpoints',
    'GET /api/admin/deliveries',
    'POST /api/admin/deliveries/{id}/resend',
    'POST /api/admin/deliveries/resend',
    'GET /api/admin/queue/accounts',
    'GET /api/admin/accounts/{id}',
    'GET /api/admin/accounts/{id}/share',
    'GET /api/admin/history',
    'PUT /api/admin/accounts/{id}/share',
    'PUT /api/admin/accounts/{id}/retention',
    'DELETE /api/admin/accounts/{id}',
    'GET /api/admin/erasures/{id}',
  ],
} as const;

export type Group = keyof typeof GROUPS;

export const COVERED: ReadonlySet<string> = new Set(Object.values(GROUPS).flat());
