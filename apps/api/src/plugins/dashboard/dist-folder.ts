import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The built dashboard (apps/dashboard/dist), found by walking up from this module: it
 * runs from apps/api/src/plugins/dashboard/ under tsx and from apps/api/dist/ once
 * bundled, so no fixed relative path fits both. Undefined when apps/dashboard is absent.
 */
export function findDashboardDist(from: string | URL = import.meta.url): string | undefined {
  for (let dir = dirname(fileURLToPath(from)); ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'apps', 'dashboard', 'package.json')))
      return join(dir, 'apps', 'dashboard', 'dist');
    if (dirname(dir) === dir) return undefined;
  }
}
