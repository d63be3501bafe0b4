// Read by the Prisma CLI only (`prisma generate`, and `prisma migrate deploy` where the
// CLI can download its engine). The services build their own client in packages/db.
import { defineConfig } from 'prisma/config';

export default defineConfig({
  schema: 'prisma/schema.prisma',
  migrations: { path: 'prisma/migrations' },
  datasource: {
    url: process.env.DATABASE_URL ?? 'postgresql://postgres:postgres@127.0.0.1:5432/ingest',
  },
});
