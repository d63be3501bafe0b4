import { AppError, type LoginRequest, type RegisterRequest } from '@ingest/contracts';
import { uniqueViolationOf, violatesUniqueColumn, type Account } from '@ingest/db';
import { v7 as uuidv7 } from 'uuid';
import type { ApiDeps } from '../deps.js';
import { hashPassword, verifyAgainstDecoy, verifyPassword } from './passwords.js';

type Deps = Pick<ApiDeps, 'db'>;

const emailTaken = () => new AppError('EMAIL_TAKEN', 'An account with this email already exists');
const handleTaken = () => new AppError('HANDLE_TAKEN', 'This handle is already taken');

export async function registerAccount(deps: Deps, input: RegisterRequest): Promise<Account> {
  const { prisma } = deps.db;
  // Checked first so a duplicate costs no password hash and email wins over handle; the
  // unique indexes below still decide races between concurrent registrations.
  const clash = await prisma.account.findFirst({
    where: { OR: [{ email: input.email }, { handle: input.handle }] },
    select: { email: true },
  });
  if (clash !== null) throw clash.email === input.email ? emailTaken() : handleTaken();

  const passwordHash = await hashPassword(input.password);
  try {
    return await prisma.account.create({
      data: {
        id: uuidv7(),
        email: input.email,
        handle: input.handle,
        name: input.name,
        passwordHash,
      },
    });
  } catch (error) {
    const violation = uniqueViolationOf(error);
    if (violation === undefined) throw error;
    if (violatesUniqueColumn(violation, 'accounts', 'email')) throw emailTaken();
    if (violatesUniqueColumn(violation, 'accounts', 'handle')) throw handleTaken();
    throw error;
  }
}

/** The account whose email and password these are; INVALID_CREDENTIALS either way it fails. */
export async function loginWithPassword(deps: Deps, input: LoginRequest): Promise<Account> {
  const account = await deps.db.prisma.account.findUnique({ where: { email: input.email } });
  const valid =
    account === null
      ? await verifyAgainstDecoy(input.password)
      : await verifyPassword(account.passwordHash, input.password);
  if (account === null || !valid) {
    throw new AppError('INVALID_CREDENTIALS', 'The email or the password is wrong');
  }
  return account;
}

export const findAccount = (deps: Deps, id: string): Promise<Account | null> =>
  deps.db.prisma.account.findUnique({ where: { id } });
