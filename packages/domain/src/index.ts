export { FALLBACK_SLUG, slugFromTitle, slugWithSuffix } from './slugs.js';
export { readingMinutes } from './reading-time.js';
export { orderKeysOf } from './order-keys.js';
export { DAY_MS, HOUR_MS, MINUTE_MS, SECOND_MS } from './durations.js';
