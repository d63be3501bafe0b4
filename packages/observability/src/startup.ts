/**
 * At start-up, a service that does not answer is one clear line on stderr and exit
 * code 1, not a stack trace: each check rejects with a message saying what is wrong and
 * how to fix it (see checkDatabase and checkRedis).
 */
export async function exitUnlessServicesAnswer(
  app: string,
  checks: Array<Promise<void>>,
): Promise<void> {
  try {
    await Promise.all(checks);
  } catch (error) {
    console.error(`${app}: cannot start: ${(error as Error).message}`);
    process.exit(1);
  }
}
