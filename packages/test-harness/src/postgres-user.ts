// The machine's `postgres` user, whom PostgreSQL's and PgBouncer's programs must run as:
// both refuse to run as root.
import { execFile } from 'node:child_process';
import { chown, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const POSTGRES_USER = 'postgres';

const run = promisify(execFile);

/** The user's and its group's numeric ids. */
export async function postgresIds(): Promise<{ uid: number; gid: number }> {
  const { stdout: uid } = await run('id', ['-u', POSTGRES_USER]);
  const { stdout: gid } = await run('id', ['-g', POSTGRES_USER]);
  return { uid: Number(uid), gid: Number(gid) };
}

/** Makes each path (a file or a directory, not its contents) the `postgres` user's. */
export async function giveToPostgres(...paths: string[]): Promise<void> {
  const { uid, gid } = await postgresIds();
  for (const path of paths) await chown(path, uid, gid);
}

/** A new temporary directory (`prefix` plus random characters) that `postgres` owns. */
export async function postgresDir(prefix: string): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await giveToPostgres(dir);
  return dir;
}
