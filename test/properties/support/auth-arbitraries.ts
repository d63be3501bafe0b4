import fc from 'fast-check';
import { hostileValue, repeatToLength, textAround, textWithin } from './hostile-values.js';
import { nearValid, type Fields } from './mutations.js';
import {
  loneSurrogate,
  naughtyString,
  storableNaughtyString,
  withUnstorable,
} from './naughty-strings.js';

/** Surrounding whitespace, which names and emails lose to trimming and passwords keep. */
const padding = fc.constantFrom('', '', '', ' ', '\t', '  \n', '\u00a0');

/** `text` with surrounding whitespace at times; values that are not strings as they are. */
export const padded = (text: fc.Arbitrary<unknown>) =>
  fc
    .tuple(padding, text, padding)
    .map(([before, value, after]) =>
      typeof value === 'string' ? `${before}${value}${after}` : value,
    );

const randomCase = (text: string) =>
  fc
    .array(fc.boolean(), { minLength: text.length, maxLength: text.length })
    .map((upper) => [...text].map((char, i) => (upper[i] ? char.toUpperCase() : char)).join(''));

/**
 * Emails of the test API's own domain, so that cleanup finds every account made; a few
 * fixed ones recur, so that registrations also meet EMAIL_TAKEN.
 */
const emailIn = (domain: string) =>
  fc
    .oneof(
      { weight: 5, arbitrary: fc.stringMatching(/^[a-z0-9_+-]{1,24}(\.[a-z0-9_'+-]{1,8})?$/) },
      { weight: 1, arbitrary: fc.constantFrom('dup-1', 'dup-2') },
    )
    .chain((local) => randomCase(`${local}@${domain}`));

/** Repeated naughty units, cut anywhere: a pair cut in two is mended. */
const repeatedPassword: fc.Arbitrary<string> = fc
  .tuple(storableNaughtyString, fc.integer({ min: 8, max: 256 }))
  .map(([unit, length]) => {
    const text = repeatToLength(unit || 'p', length);
    return text.isWellFormed() ? text : `${text.slice(0, -1)}p`;
  });

/** Passwords of 8..256 characters, well-formed (no lone surrogate) and without NUL. */
const validPassword = fc.oneof(textWithin(8, 256), repeatedPassword);

/**
 * Passwords of 8..256 characters that break one rule only: a lone surrogate stands in
 * for one of their code units. Register refuses them (argon2 would hash U+FFFD for it).
 */
export const loneSurrogatePassword: fc.Arbitrary<string> = fc
  .tuple(repeatedPassword, loneSurrogate, fc.nat())
  .map(([password, unit, at]) => {
    const i = at % password.length;
    return `${password.slice(0, i)}${unit}${password.slice(i + 1)}`;
  })
  .filter((password) => !password.isWellFormed());

const validHandle = (tag: string) =>
  fc
    .oneof(
      { weight: 5, arbitrary: fc.stringMatching(/^[a-z0-9_]{3,30}$/) },
      { weight: 1, arbitrary: fc.constantFrom(`${tag}_a`, `${tag}_b`) },
    )
    .chain(randomCase);

const validRegistration = (tag: string): fc.Arbitrary<Fields> =>
  fc.record({
    email: padded(emailIn(`${tag}.test`)),
    password: validPassword,
    handle: padded(validHandle(tag)),
    name: padded(textWithin(1, 100, { notBlank: true })),
  });

/** Valid-looking emails of the test domain at and past the 254-character bound. */
const emailsAtBound = (domain: string) =>
  fc.constantFrom(254, 255).map((length) => `${'e'.repeat(length - domain.length - 1)}@${domain}`);

/** POST /api/auth/register bodies: mostly invalid (a valid one costs an argon2id hash). */
export const registrationBody = (tag: string): fc.Arbitrary<unknown> =>
  nearValid(
    validRegistration(tag),
    {
      email: fc.oneof(
        textAround(3, 254),
        hostileValue,
        emailsAtBound(`${tag}.test`),
        withUnstorable.map((text) => `${text}@${tag}.test`),
        naughtyString.map((text) => `${text}@${tag}.test`),
      ),
      password: fc.oneof(textAround(8, 256), hostileValue, withUnstorable, loneSurrogatePassword),
      handle: fc.oneof(
        textAround(3, 30),
        hostileValue,
        fc.constantFrom('İii', 'ab-c', 'a b', 'ab', 'h'.repeat(30), 'h'.repeat(31), ' Abc '),
      ),
      name: fc.oneof(
        textAround(1, 100),
        hostileValue,
        withUnstorable,
        // Trimmed first: 100 characters inside spaces fit, 101 do not.
        fc.constantFrom(' \t\n ', ` ${'n'.repeat(100)} `, 'n'.repeat(101)),
      ),
    },
    1,
  );

export interface Credentials {
  email: string;
  password: string;
}

/** Ways a login can get an account's email or password almost right. */
const loginNearMiss = (account: Credentials) =>
  fc.record({
    email: fc.oneof(
      fc.constant(account.email),
      padded(randomCase(account.email)),
      fc.constant(account.email.replace('@', '@x')),
      naughtyString,
    ),
    password: fc.oneof(
      { weight: 3, arbitrary: fc.constant(account.password) },
      fc.constantFrom(
        `${account.password}x`,
        account.password.slice(0, -1),
        account.password.toUpperCase(),
        ` ${account.password}`,
        repeatToLength(account.password, 257),
      ),
      // Its U+FFFD as a lone surrogate: the same password to argon2, which hashes UTF-8.
      loneSurrogate.map((unit) => account.password.replaceAll('\ufffd', unit)),
      naughtyString,
    ),
  });

/** POST /api/auth/login bodies against `accounts`, near misses and hostile ones. */
export const loginBody = (accounts: Credentials[]): fc.Arbitrary<unknown> =>
  nearValid(
    fc.constantFrom(...accounts).chain(loginNearMiss),
    {
      email: fc.oneof(textAround(1, 254), hostileValue),
      password: fc.oneof(textAround(1, 256), hostileValue),
    },
    2,
  );
