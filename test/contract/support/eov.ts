// express-openapi-validator (EOV), used without Express. Its response validator is the one
// real OpenAPI response validator installed here that reads OpenAPI 3.1 the way 3.1 means
// it: Ajv's JSON Schema 2020-12 build, formats checked (ajv-formats), `+json` media types
// validated, a status the operation does not declare refused, a body where none is
// declared refused. validator.test.ts shows what it does not do (content types, headers)
// and validator.ts adds exactly that.
//
// EOV is Express middleware; its middleware wraps `res.json` and calls these classes.
// They are what it is made of, required from its dist/ (the package has no `exports`
// map, and 5.6.2 is pinned in test/package.json, so the paths cannot move under us).
import { createRequire } from 'node:module';
import type { OpenApiDocument, ResponseObject } from './document.js';

const require = createRequire(import.meta.url);

interface EovOptionsInstance {
  options: { validateResponses: Record<string, unknown> };
  ajvOpts: { preprocessor: Record<string, unknown>; response: Record<string, unknown> };
}
export interface EovResponseValidator {
  buildValidators(responses: Record<string, ResponseObject>, cacheKey: string): EovValidators;
  _validate(input: {
    validators: EovValidators;
    body: unknown;
    statusCode: number;
    path: string;
    accepts: string[];
  }): void;
}
export type EovValidators = Record<string, unknown>;
/** What EOV throws when a response breaks the document. */
export interface EovError {
  message: string;
  errors?: { path?: string; message?: string; errorCode?: string }[];
}

const { OpenApiValidator } = require('express-openapi-validator/dist/openapi.validator.js') as {
  OpenApiValidator: new (options: Record<string, unknown>) => EovOptionsInstance;
};
const { SchemaPreprocessor } =
  require('express-openapi-validator/dist/middlewares/parsers/schema.preprocessor.js') as {
    SchemaPreprocessor: new (
      document: OpenApiDocument,
      ajvOptions: Record<string, unknown>,
      responseOptions: Record<string, unknown>,
    ) => { preProcess(): { apiDocRes: OpenApiDocument } };
  };
const { ResponseValidator } =
  require('express-openapi-validator/dist/middlewares/openapi.response.validator.js') as {
    ResponseValidator: new (
      document: OpenApiDocument,
      ajvOptions: Record<string, unknown>,
      responseOptions: Record<string, unknown>,
    ) => EovResponseValidator;
  };

/**
 * EOV's response validator for `document`, built as its middleware builds it: its options
 * normalised by its own constructor, then its schema preprocessor's response copy of the
 * document. Formats are checked in ajv-formats' `full` mode (a `date-time` of 2026-02-30
 * fails), every error is reported (`allErrors`), nothing is coerced or removed.
 */
export function createEovResponseValidator(document: OpenApiDocument): {
  validator: EovResponseValidator;
  responseDocument: OpenApiDocument;
} {
  const configured = new OpenApiValidator({
    apiSpec: structuredClone(document),
    validateRequests: false,
    validateResponses: { allErrors: true, coerceTypes: false, removeAdditional: false },
    validateFormats: true,
    ajvFormats: { mode: 'full' },
  });
  const resOptions = configured.options.validateResponses;
  const { apiDocRes } = new SchemaPreprocessor(
    structuredClone(document),
    configured.ajvOpts.preprocessor,
    resOptions,
  ).preProcess();
  return {
    validator: new ResponseValidator(apiDocRes, configured.ajvOpts.response, resOptions),
    responseDocument: apiDocRes,
  };
}

/** Ajv's JSON Schema 2020-12 build and ajv-formats, as EOV itself loads them. */
export function ajv2020(options: Record<string, unknown>): Ajv2020Instance {
  const fromEov = createRequire(require.resolve('express-openapi-validator'));
  const { default: Ajv2020 } = fromEov('ajv/dist/2020') as {
    default: new (options: Record<string, unknown>) => Ajv2020Instance;
  };
  const { default: addFormats } = fromEov('ajv-formats') as {
    default: (ajv: Ajv2020Instance, options: Record<string, unknown>) => void;
  };
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, ...options });
  addFormats(ajv, { mode: 'full' });
  return ajv;
}

export interface AjvError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}
export interface Ajv2020Instance {
  compile(schema: Record<string, unknown>): ((data: unknown) => boolean) & {
    errors?: AjvError[] | null;
  };
}
