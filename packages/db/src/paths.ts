import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The prisma folder (schema.prisma and migrations/), found by walking up from this module:
 * it runs from packages/db/src/ under tsx, and from apps/api/dist/cli/ once bundled into
 * the API's migration entry (in the API's image too, where prisma/ sits at the top of the
 * same layout), so no fixed relative path fits both.
 */
function findPrismaDir(): string {
  const start = dirname(fileURLToPath(import.meta.url));
  for (let dir = start; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'prisma', 'schema.prisma'))) return join(dir, 'prisma');
    if (dirname(dir) === dir) throw new Error(`no prisma/schema.prisma above ${start}`);
  }
}

const prismaDir = findPrismaDir();

export const SCHEMA_PATH = join(prismaDir, 'schema.prisma');
export const MIGRATIONS_DIR = join(prismaDir, 'migrations');
