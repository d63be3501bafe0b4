// `pnpm admin:grant <email>` (or `--revoke <email>`): the only way to make an account an
// operator. It runs on the server, against the database; no API can grant the role.
import { ConfigError, loadSharedConfig } from '@ingest/config';
import { createDatabase } from '@ingest/db';

const args = process.argv.slice(2);
const revoke = args.includes('--revoke');
const email = args
  .find((arg) => !arg.startsWith('--'))
  ?.trim()
  .toLowerCase();
if (email === undefined || email === '') {
  console.error('usage: pnpm admin:grant <email>   |   pnpm admin:grant --revoke <email>');
  process.exit(2);
}

let config;
try {
  config = loadSharedConfig();
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : String(error));
  process.exit(1);
}
const db = createDatabase({ url: config.database.url, poolSize: 1 });
try {
  const { count } = await db.prisma.account.updateMany({
    where: { email },
    data: { role: revoke ? 'publisher' : 'admin' },
  });
  if (count === 0) {
    console.error(`no account with the email ${email}`);
    process.exitCode = 1;
  } else {
    console.log(
      revoke ? `${email} is no longer an operator` : `${email} is now an operator (admin)`,
    );
  }
} finally {
  await db.close();
}
