// Where the API serves what: the one place a path is spelled, for the routes' answers
// (Location, a problem's `instance`) and for any client that builds a link.

/** The receipt of the event `id`: what the Location of an accepted event points to. */
export const receiptPath = (id: string): string => `/api/webhooks/content/${id}`;
