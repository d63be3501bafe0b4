// The oracle: is a response what the served document says this operation answers?
//
// Why an adapter, and why over express-openapi-validator (evidence in validator.test.ts):
// - openapi-backend refuses our document outright (it validates it as OpenAPI 3.0, and a
//   3.1 document fails by the hundred); loaded without that check, it compiles schemas with
//   draft-07 Ajv and no formats, passes a status the operation does not declare, and only
//   ever looks at `application/json` (a problem+json body is never checked).
// - express-openapi-validator (EOV) runs JSON Schema 2020-12 with formats, refuses an
//   undeclared status, a body where none is declared, and a wrong body; but it validates a
//   body under a content type the response does not have (it falls back to the first one
//   declared), never looks at response headers, and skips non-JSON bodies.
// So EOV judges status and JSON bodies (eov.ts), and this file adds what it lacks, with the
// same Ajv 2020 build: the content type must be one the response declares, declared headers
// must be there when required and valid, a non-JSON body is checked against its schema,
// and (stricter than OpenAPI requires, see UNDECLARED_HEADERS) a header the API sends must
// be declared.
import {
  resolve,
  type HeaderObject,
  type JsonSchema,
  type OpenApiDocument,
  type ResponseObject,
} from './document.js';
import {
  ajv2020,
  createEovResponseValidator,
  type AjvError,
  type EovError,
  type EovResponseValidator,
  type EovValidators,
} from './eov.js';

/** One way a response breaks the contract. `rule` is stable, so failures group by it. */
export interface Violation {
  rule: string;
  detail?: string;
}

export interface ObservedResponse {
  statusCode: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/**
 * Headers that are HTTP's business rather than the API's: every response may carry them
 * undeclared. Content-Type is declared by the media type itself (OpenAPI ignores a
 * Content-Type among `headers`).
 */
const TRANSPORT_HEADERS = new Set([
  'content-type',
  'content-length',
  'date',
  'connection',
  'keep-alive',
  'transfer-encoding',
]);

/**
 * Whether a header the API sends must be declared for that status. OpenAPI allows extra
 * headers, but every other header this API sends is part of what clients rely on
 * (x-request-id, Location, Retry-After, RateLimit-*, WWW-Authenticate, Allow, Set-Cookie,
 * Idempotent-Replayed, Preference-Applied), and a client generated from the document only
 * knows declared ones. CONTRACT_UNDECLARED_HEADERS=allow turns this off.
 */
export const UNDECLARED_HEADERS: 'refuse' | 'allow' =
  process.env.CONTRACT_UNDECLARED_HEADERS === 'allow' ? 'allow' : 'refuse';

export const mediaTypeOf = (contentType: string | undefined): string | undefined =>
  contentType?.split(';')[0]?.trim().toLowerCase() || undefined;

const isJsonMediaType = (mediaType: string): boolean =>
  /^application\/(?:[\w.-]+\+)?json$/.test(mediaType);

/** The declared media type a response's type falls under: exact, `type/*` or `*\/*`. */
function declaredMediaType(actual: string, declared: string[]): string | undefined {
  const normalised = declared.map((type) => ({ type, media: mediaTypeOf(type) ?? '' }));
  return (
    normalised.find(({ media }) => media === actual)?.type ??
    normalised.find(({ media }) => media.endsWith('/*') && actual.startsWith(media.slice(0, -1)))
      ?.type ??
    normalised.find(({ media }) => media === '*/*')?.type
  );
}

const headerText = (value: string | string[] | number | undefined): string | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value.join(', ') : String(value);

/** `/items/3/author` becomes `/items/*\/author`: one rule for every index. */
const genericPath = (path: string): string => path.replace(/\/\d+(?=\/|$)/g, '/*');

const ajvReasons = (errors: AjvError[] | null | undefined): string[] =>
  (errors ?? []).map((error) => `${genericPath(error.instancePath) || '/'} ${error.message ?? ''}`);

export class ContractValidator {
  private readonly eov: EovResponseValidator;
  private readonly responseDocument: OpenApiDocument;
  private readonly eovValidators = new Map<string, EovValidators>();
  private readonly compiled = new Map<string, ReturnType<ReturnType<typeof ajv2020>['compile']>>();
  // Headers arrive as text: `RateLimit-Remaining: 5` is an integer 5 to its schema.
  private readonly headerAjv = ajv2020({ coerceTypes: true });
  private readonly bodyAjv = ajv2020({ coerceTypes: false });

  constructor(readonly document: OpenApiDocument) {
    ({ validator: this.eov, responseDocument: this.responseDocument } =
      createEovResponseValidator(document));
  }

  /** The response object the document gives `status` under this operation, if any. */
  declaredResponse(method: string, path: string, status: number): ResponseObject | undefined {
    const responses = this.operationResponses(method, path);
    const found =
      responses[String(status)] ?? responses[`${String(status)[0]}XX`] ?? responses.default;
    return found === undefined ? undefined : resolve(this.document, found as ResponseObject);
  }

  /**
   * Every way `response` breaks the document's entry for `method path` (a HEAD is held
   * to its GET, without a body). Empty when it is a valid answer of that operation.
   */
  validate(method: string, path: string, response: ObservedResponse): Violation[] {
    const asGet = method === 'HEAD' && this.document.paths[path]?.head === undefined;
    const documented = asGet ? 'GET' : method;
    const status = response.statusCode;
    const declared = this.declaredResponse(documented, path, status);
    if (declared === undefined) {
      return [{ rule: `status ${status} is not declared` }];
    }
    const violations: Violation[] = [];
    const contentType = headerText(response.headers['content-type']);
    const actual = mediaTypeOf(contentType);
    const declaredTypes = Object.keys(declared.content ?? {});
    const hasBody = response.body.length > 0;
    let matched: string | undefined;
    if (declaredTypes.length === 0) {
      if (hasBody) violations.push({ rule: 'a body was sent where the status declares none' });
    } else if (!hasBody && method !== 'HEAD') {
      violations.push({ rule: 'no body was sent where the status declares one' });
    } else if (actual === undefined) {
      violations.push({
        rule: 'no Content-Type where the status declares a body',
        detail: `declared: ${declaredTypes.join(', ')}`,
      });
    } else {
      matched = declaredMediaType(actual, declaredTypes);
      if (matched === undefined) {
        violations.push({
          rule: `Content-Type ${actual} is not declared for the status`,
          detail: `declared: ${declaredTypes.join(', ')}`,
        });
      } else if (Object.keys(declared.content?.[matched]?.schema ?? {}).length === 0) {
        // A media type without a schema (or with `{}`) takes any body: nothing to hold it
        // to, and a generated client types it `unknown`.
        violations.push({ rule: `the document gives ${matched} no schema for the status` });
      }
    }
    violations.push(...this.headerViolations(declared, status, response));
    if (method !== 'HEAD' && matched !== undefined) {
      violations.push(...this.bodyViolations(documented, path, status, matched, response.body));
    }
    return violations;
  }

  /** Validates a JSON body against a schema of `components.schemas`. */
  validateComponent(name: string, body: unknown): Violation[] {
    if (this.document.components?.schemas?.[name] === undefined) {
      return [{ rule: `the document has no ${name} schema` }];
    }
    const validate = this.compile(`component:${name}`, this.bodyAjv, {
      $ref: `#/components/schemas/${name}`,
    });
    return validate(body)
      ? []
      : ajvReasons(validate.errors).map((reason) => ({ rule: `${name} body: ${reason}` }));
  }

  private operationResponses(method: string, path: string): Record<string, unknown> {
    const operation = this.document.paths[path]?.[method.toLowerCase()] as
      { responses?: Record<string, unknown> } | undefined;
    if (operation === undefined) throw new Error(`the document has no ${method} ${path}`);
    return operation.responses ?? {};
  }

  private headerViolations(
    declared: ResponseObject,
    status: number,
    response: ObservedResponse,
  ): Violation[] {
    const violations: Violation[] = [];
    const headers = new Map(
      Object.entries(declared.headers ?? {})
        .map(([name, header]) => [name.toLowerCase(), resolve<HeaderObject>(this.document, header)])
        .filter(([name]) => name !== 'content-type') as [string, HeaderObject][],
    );
    for (const [name, header] of headers) {
      const value = headerText(response.headers[name]);
      if (value === undefined) {
        if (header.required === true) {
          violations.push({ rule: `required header ${name} is missing` });
        }
        continue;
      }
      const schema = header.schema ?? Object.values(header.content ?? {})[0]?.schema;
      if (schema === undefined) continue;
      const validate = this.compile(`header:${JSON.stringify(schema)}`, this.headerAjv, {
        type: 'object',
        properties: { value: schema },
      });
      if (!validate({ value })) {
        violations.push({
          rule: `header ${name} does not match its schema`,
          detail: `${JSON.stringify(value)}: ${ajvReasons(validate.errors).join('; ')}`,
        });
      }
    }
    if (UNDECLARED_HEADERS === 'refuse') {
      for (const name of Object.keys(response.headers)) {
        const lower = name.toLowerCase();
        if (TRANSPORT_HEADERS.has(lower) || headers.has(lower)) continue;
        violations.push({ rule: `header ${lower} is sent but not declared for the status` });
      }
    }
    return violations;
  }

  private bodyViolations(
    method: string,
    path: string,
    status: number,
    mediaType: string,
    text: string,
  ): Violation[] {
    const schema = resolve<ResponseObject>(
      this.document,
      this.declaredResponse(method, path, status) ?? {},
    ).content?.[mediaType]?.schema;
    if (!isJsonMediaType(mediaTypeOf(mediaType) ?? '')) {
      if (schema === undefined) return [];
      const validate = this.compile(`text:${JSON.stringify(schema)}`, this.bodyAjv, {
        ...schema,
        components: this.document.components ?? {},
      });
      return validate(text)
        ? []
        : ajvReasons(validate.errors).map((reason) => ({ rule: `${status} body: ${reason}` }));
    }
    let body: unknown;
    try {
      body = text.length === 0 ? undefined : JSON.parse(text);
    } catch {
      return [{ rule: `status ${status}: the ${mediaType} body is not JSON`, detail: text }];
    }
    try {
      this.eov._validate({
        validators: this.eovFor(method, path),
        body,
        statusCode: status,
        path,
        accepts: [mediaType],
      });
      return [];
    } catch (error) {
      const { message, errors } = error as EovError;
      if (errors === undefined || errors.length === 0) return [{ rule: `${status}: ${message}` }];
      return errors.map((item) => ({
        rule: `${status} body: ${genericPath((item.path ?? '').replace(/^\/response/, '')) || '/'} ${item.message ?? ''}`,
      }));
    }
  }

  private eovFor(method: string, path: string): EovValidators {
    const key = `${method} ${path}`;
    let validators = this.eovValidators.get(key);
    if (validators === undefined) {
      const operation = this.responseDocument.paths[path]?.[method.toLowerCase()] as {
        responses: Record<string, ResponseObject>;
      };
      validators = this.eov.buildValidators(operation.responses, key);
      this.eovValidators.set(key, validators);
    }
    return validators;
  }

  private compile(key: string, ajv: ReturnType<typeof ajv2020>, schema: JsonSchema) {
    let validate = this.compiled.get(key);
    if (validate === undefined) {
      validate = ajv.compile({ ...schema, components: this.document.components ?? {} });
      this.compiled.set(key, validate);
    }
    return validate;
  }
}
