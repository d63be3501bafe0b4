-- JIT off for every new session of this database, whoever opens it. The API and workers
-- already ask for it when they connect directly (packages/db, client.ts); through a
-- transaction-mode pooler (PgBouncer) they cannot, as it refuses startup options, and a
-- JIT compilation of a hot statement once cost 2 s a call. Not expressible in
-- schema.prisma, so by hand; the database's name is whatever this one is called.
DO $$
BEGIN
  EXECUTE format('ALTER DATABASE %I SET jit = off', current_database());
END
$$;
