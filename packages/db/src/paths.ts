import { fileURLToPath } from 'node:url';

/** The repository's prisma folder, found from this file rather than the working directory. */
const prismaDir = fileURLToPath(new URL('../../../prisma/', import.meta.url));

export const SCHEMA_PATH = `${prismaDir}schema.prisma`;
export const MIGRATIONS_DIR = `${prismaDir}migrations`;
