// @types/node 20 does not declare the WebAssembly global (TypeScript puts it in the DOM
// lib); these are the few members the schema engine loader uses.
declare namespace WebAssembly {
  type ModuleImports = Record<string, unknown>;
  interface Module {
    readonly __brand?: 'WebAssembly.Module';
  }
  interface Instance {
    readonly exports: Record<string, unknown>;
  }
  function compile(bytes: Uint8Array): Promise<Module>;
  function instantiate(module: Module, imports: Record<string, ModuleImports>): Promise<Instance>;
}
