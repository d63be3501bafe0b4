// eslint-disable-next-line @typescript-eslint/triple-slash-reference -- a global declaration, not a module to import
/// <reference path="./webassembly.d.ts" />
/**
 * Prisma's real schema engine (the one behind `prisma migrate`), run as WebAssembly over
 * a driver adapter instead of as the native binary the CLI downloads. Machines without
 * internet access (CI here) cannot download that binary; the wasm build ships in an npm
 * package and speaks to PostgreSQL through `@prisma/adapter-pg`.
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { PrismaPg } from '@prisma/adapter-pg';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import * as bindings from '@prisma/schema-engine-wasm/schema_engine_bg';
import type { SchemaEngine } from '@prisma/schema-engine-wasm/schema_engine_bg';

export type { SchemaEngine };

let initialised: Promise<void> | undefined;

// The package's main entry imports the .wasm file as an ES module, which Node refuses;
// so the wasm-bindgen glue is loaded on its own and the module instantiated here.
async function initialiseWasm(): Promise<void> {
  const require = createRequire(import.meta.url);
  const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
  const wasmBytes = await readFile(gluePath.replace(/\.js$/, '.wasm'));
  const module = await WebAssembly.compile(wasmBytes);
  const instance = await WebAssembly.instantiate(module, {
    './schema_engine_bg.js': bindings,
  });
  const exports = instance.exports as { __wbindgen_start: () => void };
  bindings.__wbg_set_wasm(exports);
  exports.__wbindgen_start();
}

interface ScriptAdapter {
  executeScript(script: string): Promise<void>;
  onError(error: unknown): never;
}

/**
 * adapter-pg 7.10 runs a migration script by splitting it on every ";" and sending the
 * pieces one by one: a ";" in a comment, a string or a DO block breaks the script, and a
 * failure half-way leaves the earlier statements applied. The native engine sends the
 * script whole. So does this: one simple-protocol query, which PostgreSQL runs as one
 * implicit transaction, so a migration applies completely or not at all.
 */
class WholeScriptPg extends PrismaPg {
  constructor(private readonly pool: pg.Pool) {
    super(pool);
  }

  override async connect(): ReturnType<PrismaPg['connect']> {
    const adapter = await super.connect();
    const scripted = adapter as unknown as ScriptAdapter;
    scripted.executeScript = async (script) => {
      try {
        await this.pool.query(script);
      } catch (error) {
        scripted.onError(error);
      }
    };
    return adapter;
  }
}

export interface OpenSchemaEngine {
  engine: SchemaEngine;
  /** Frees the engine and ends its connections; the process would otherwise wait for them. */
  close(): Promise<void>;
}

/** Opens a schema engine connected to `connectionString`, loaded with `schemaFiles`. */
export async function openSchemaEngine(
  connectionString: string,
  schemaFiles: Array<{ path: string; content: string }>,
): Promise<OpenSchemaEngine> {
  initialised ??= initialiseWasm();
  await initialised;
  const pool = new pg.Pool({ connectionString, max: 2 });
  pool.on('error', () => {});
  // The adapter must be wrapped: called bare, PrismaPg loses `this` and its results are
  // not in the shape the engine expects.
  const adapterFactory = bindMigrationAwareSqlAdapterFactory(new WholeScriptPg(pool));
  const ignoreEngineLog = (): void => {};
  const engine = await bindings.SchemaEngine.new(
    { datamodels: schemaFiles.map((file) => [file.path, file.content]) },
    ignoreEngineLog,
    adapterFactory,
  );
  return {
    engine,
    async close() {
      engine.free();
      await pool.end();
    },
  };
}

export const NO_SCHEMA_FILTER = { externalTables: [], externalEnums: [] };
