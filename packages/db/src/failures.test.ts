import { expect, it } from 'vitest';
import { databaseFailureOf } from './failures.js';

// Shapes as Prisma 7 with @prisma/adapter-pg reports them (captured from real failures).
const adapterError = (cause: Record<string, unknown>, code = 'P2010') =>
  Object.assign(new Error('Raw query failed'), {
    code,
    meta: { driverAdapterError: { name: 'DriverAdapterError', cause } },
  });

it.each([
  [
    'a refused connection',
    adapterError({ kind: 'DatabaseNotReachable', host: '127.0.0.1', port: 9 }, 'P1001'),
    'unreachable',
  ],
  [
    'a raw query on a refused connection',
    adapterError({ kind: 'DatabaseNotReachable' }),
    'unreachable',
  ],
  ['a statement timeout', adapterError({ kind: 'postgres', originalCode: '57014' }), 'timeout'],
  [
    'an administrator shutdown',
    adapterError({ kind: 'postgres', originalCode: '57P01' }),
    'unreachable',
  ],
  [
    'a serialization failure',
    adapterError({ kind: 'postgres', originalCode: '40001' }),
    'conflict',
  ],
  [
    'a socket error in a cause',
    new Error('outer', { cause: Object.assign(new Error('x'), { code: 'ECONNRESET' }) }),
    'unreachable',
  ],
  ['a pool wait timeout', new Error('timeout exceeded when trying to connect'), 'timeout'],
  ['a unique violation', adapterError({ kind: 'UniqueConstraintViolation' }, 'P2002'), undefined],
  ['a plain bug', new TypeError('x is undefined'), undefined],
])('classifies %s', (_label, error, expected) => {
  expect(databaseFailureOf(error)).toBe(expected);
});
