// Run in the images' build stage on the output of `pnpm deploy --prod`: removes the
// packages that the app's dependencies reach only as optional peers. @prisma/client names
// the Prisma CLI and TypeScript as optional peers; the workspace installs both for
// development, so the lockfile binds them and the deploy brings the CLI's whole tree
// (Prisma Studio, TypeScript, PGlite: about 200 MB) into an image that never runs it. An
// optional peer is one a package works without; one that something needs outright stays.
// Usage: node container-prune.mjs <deployed directory>
import { existsSync, lstatSync, readFileSync, readdirSync, realpathSync, rmSync } from 'node:fs';
import { join, relative, sep } from 'node:path';

const root = process.argv[2];
const store = join(root, 'node_modules', '.pnpm');

/** The packages linked in a node_modules folder, scoped ones included: [name, path]. */
function linksIn(dir) {
  return readdirSync(dir)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) =>
      name.startsWith('@')
        ? readdirSync(join(dir, name)).map((sub) => [`${name}/${sub}`, join(dir, name, sub)])
        : [[name, join(dir, name)]],
    );
}

/** The store entry (`<id>` of `.pnpm/<id>`) a package path resolves into, if any. */
function entryOf(path) {
  const inStore = relative(store, realpathSync(path));
  return inStore.startsWith('..') ? undefined : inStore.split(sep)[0];
}

/** A package's optional peers that it does not also depend on outright ([] for a link). */
function optionalPeersOf(path) {
  if (lstatSync(path).isSymbolicLink()) return [];
  const manifest = JSON.parse(readFileSync(join(path, 'package.json'), 'utf8'));
  return Object.entries(manifest.peerDependenciesMeta ?? {})
    .filter(([name, meta]) => meta.optional === true && !(name in (manifest.dependencies ?? {})))
    .map(([name]) => name);
}

const reachable = new Set();
const pending = linksIn(join(root, 'node_modules')).map(([, path]) => path);
while (pending.length > 0) {
  const entry = entryOf(pending.pop());
  if (entry === undefined || reachable.has(entry)) continue;
  reachable.add(entry);
  // An entry's node_modules holds the package itself and a link to each dependency.
  const links = linksIn(join(store, entry, 'node_modules'));
  const optionalPeers = new Set(links.flatMap(([, path]) => optionalPeersOf(path)));
  for (const [name, path] of links) if (!optionalPeers.has(name)) pending.push(path);
}

let removed = 0;
for (const entry of readdirSync(store)) {
  if (entry === 'node_modules' || entry.endsWith('.yaml') || reachable.has(entry)) continue;
  rmSync(join(store, entry), { recursive: true, force: true });
  removed += 1;
}
// Links left dangling: optional peers' (the package then runs as it would without them)
// and pnpm's hidden hoisting's, which links every package in .pnpm/node_modules.
for (const dir of [...[...reachable].map((entry) => join(store, entry)), store]) {
  for (const [, path] of linksIn(join(dir, 'node_modules'))) {
    if (!existsSync(path)) rmSync(path, { force: true });
  }
}
console.log(`container-prune: removed ${removed} packages no dependency reaches`);
