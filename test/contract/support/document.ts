// The served OpenAPI document, and the operations in it. The suite is driven by what the
// API says about itself (GET /openapi.json), never by a copy of it: a route added to the
// code shows up here, and the coverage test makes sure something fuzzes it.
import type { TestApi } from '../../support/test-api.js';

/** The parts of an OpenAPI 3.1 document this suite reads; the rest passes through untouched. */
export interface OpenApiDocument {
  openapi: string;
  paths: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, JsonSchema>;
    headers?: Record<string, HeaderObject | Reference>;
    responses?: Record<string, ResponseObject | Reference>;
    parameters?: Record<string, ParameterObject | Reference>;
    [other: string]: unknown;
  };
  [other: string]: unknown;
}

export type JsonSchema = Record<string, unknown>;
export interface Reference {
  $ref: string;
}
export interface MediaTypeObject {
  schema?: JsonSchema;
}
export interface HeaderObject {
  required?: boolean;
  schema?: JsonSchema;
  content?: Record<string, MediaTypeObject>;
}
export interface ResponseObject {
  description?: string;
  headers?: Record<string, HeaderObject | Reference>;
  content?: Record<string, MediaTypeObject>;
}
export interface ParameterObject {
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  schema?: JsonSchema;
}
export interface OperationObject {
  parameters?: (ParameterObject | Reference)[];
  requestBody?: { required?: boolean; content?: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject | Reference>;
  security?: Record<string, string[]>[];
}

/** One operation of the document: `GET /api/articles/{slug}`. */
export interface Operation {
  /** Upper case, as sent: `GET`. */
  method: string;
  /** The document's path template: `/api/articles/{slug}`. */
  path: string;
  /** `GET /api/articles/{slug}`: how the suite names it everywhere. */
  key: string;
  object: OperationObject;
  parameters: ParameterObject[];
}

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

export const isReference = (value: unknown): value is Reference =>
  typeof value === 'object' && value !== null && typeof (value as Reference).$ref === 'string';

/** Follows a local `#/components/...` reference; anything else is returned as it is. */
export function resolve<T>(document: OpenApiDocument, value: T | Reference): T {
  let current: unknown = value;
  for (let hops = 0; isReference(current); hops += 1) {
    if (hops > 20 || !current.$ref.startsWith('#/'))
      throw new Error(`cannot follow ${current.$ref}`);
    current = current.$ref
      .slice(2)
      .split('/')
      .map((part) => part.replaceAll('~1', '/').replaceAll('~0', '~'))
      .reduce<unknown>(
        (node, part) => (node as Record<string, unknown> | undefined)?.[part],
        document,
      );
    if (current === undefined) throw new Error(`dangling reference ${(value as Reference).$ref}`);
  }
  return current as T;
}

export async function loadServedDocument(api: TestApi): Promise<OpenApiDocument> {
  const response = await api.app.inject({ method: 'GET', url: '/openapi.json' });
  if (response.statusCode !== 200) {
    throw new Error(`GET /openapi.json answered ${response.statusCode}: ${response.body}`);
  }
  const document = response.json<OpenApiDocument>();
  if (!document.openapi.startsWith('3.1')) {
    throw new Error(`the suite reads OpenAPI 3.1; the API serves ${document.openapi}`);
  }
  return document;
}

/** Every operation of the document, in the document's order. */
export function operationsOf(document: OpenApiDocument): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths)) {
    const shared = ((item.parameters as (ParameterObject | Reference)[] | undefined) ?? []).map(
      (parameter) => resolve(document, parameter),
    );
    for (const method of HTTP_METHODS) {
      const object = item[method] as OperationObject | undefined;
      if (object === undefined) continue;
      const own = (object.parameters ?? []).map((parameter) => resolve(document, parameter));
      const parameters = [
        ...shared.filter((p) => !own.some((o) => o.name === p.name && o.in === p.in)),
        ...own,
      ];
      const upper = method.toUpperCase();
      operations.push({ method: upper, path, key: `${upper} ${path}`, object, parameters });
    }
  }
  return operations;
}

/** The methods the document lists for a path template, upper case. */
export function documentedMethods(document: OpenApiDocument, path: string): string[] {
  const item = document.paths[path] ?? {};
  return HTTP_METHODS.filter((method) => item[method] !== undefined).map((m) => m.toUpperCase());
}

/** Fastify's `/api/articles/:slug` as the document writes it: `/api/articles/{slug}`. */
export const documentPathOf = (fastifyUrl: string): string =>
  fastifyUrl.replace(/:([A-Za-z0-9_]+)/g, '{$1}');

/** Every document path template a concrete path falls under (`{x}` is one segment). */
export function templatesOf(document: OpenApiDocument, concretePath: string): string[] {
  const segments = concretePath.split('/');
  return Object.keys(document.paths).filter((template) => {
    const parts = template.split('/');
    return (
      parts.length === segments.length &&
      parts.every((part, i) => /^\{[^}]+\}$/.test(part) || part === segments[i])
    );
  });
}

/**
 * The methods the document gives a concrete path, from every template it falls under:
 * `/api/admin/events/retry` is POST by its own template and GET as `/api/admin/events/{id}`.
 */
export function methodsOfConcretePath(document: OpenApiDocument, concretePath: string): string[] {
  const methods = new Set(
    templatesOf(document, concretePath).flatMap((template) =>
      documentedMethods(document, template),
    ),
  );
  return [...methods];
}
