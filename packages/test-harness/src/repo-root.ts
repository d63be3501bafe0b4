import { fileURLToPath } from 'node:url';

/** The repository's root folder (with a trailing slash), found from this file. */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
