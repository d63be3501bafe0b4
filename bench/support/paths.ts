import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const BENCH_DIR = fileURLToPath(new URL('../', import.meta.url));
/** Every process of a run writes its output here, one file each. */
export const LOG_DIR = join(BENCH_DIR, 'results/logs');
