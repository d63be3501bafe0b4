// `node dist/cli/migrate.js`: `pnpm db:migrate` bundled into the API's build, so that the
// API's image runs the migrations as a one-shot (docker-compose.yml's `migrate` service)
// without tsx or the sources. The wasm schema engine and the prisma folder are found at
// run time: the first in node_modules, the second by walking up from the bundle.
import '@ingest/db/cli/migrate';
