import { expect, it } from 'vitest';
import { preferredWaitSeconds } from './prefer-wait.js';

it.each([
  [undefined, 0],
  ['', 0],
  ['wait=5', 5],
  ['respond-async, wait=10', 10],
  ['WAIT = 7', 7],
  ['wait="3"', 3],
  ['wait=100', 30],
  ['wait=-1', 0],
  ['wait=abc', 0],
  [['handling=lenient', 'wait=2'], 2],
])('Prefer: %j waits %i s', (header, seconds) => {
  expect(preferredWaitSeconds(header, 30)).toBe(seconds);
});
