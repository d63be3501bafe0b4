/**
 * Floor processes exit when the bench runner that started them is gone (even killed
 * with SIGKILL, when it can clean nothing up), instead of lingering on their ports.
 */
export function exitWithParent(): void {
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid !== parent) process.exit(1);
  }, 1_000).unref();
}
