export { FALLBACK_SLUG, slugFromTitle, slugWithSuffix } from './slugs.js';
export { readingMinutes } from './reading-time.js';
export { orderKeysOf } from './order-keys.js';
