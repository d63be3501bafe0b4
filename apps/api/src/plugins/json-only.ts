import { AppError } from '@ingest/contracts';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import fp from 'fastify-plugin';
import { parse as secureJsonParse } from 'secure-json-parse';

declare module 'fastify' {
  interface FastifyRequest {
    /** The JSON body's bytes as they arrived; null when there was none. */
    rawBody: Buffer | null;
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const CHARSET = /;\s*charset\s*=\s*"?([^";\s]*)"?/i;

/**
 * Every body this API takes is JSON, read exactly as sent. Fastify's own JSON parser
 * decodes whatever bytes come as UTF-8, replacing what does not decode with U+FFFD, and
 * ignores the charset: "café" sent in ISO-8859-1 would be stored as "caf\uFFFD". Here a
 * charset other than UTF-8 is a 415 and bytes that are not UTF-8 are a 400, so nothing is
 * silently rewritten. Prototype poisoning keys are refused as Fastify refuses them (the
 * same secure-json-parse). A body that is empty is fine where a route takes none (a POST
 * with nothing to send but a JSON content type), and INVALID_JSON where it does. Fastify's
 * text/plain parser goes too, so such a request is a clear 415.
 */
export const jsonOnlyPlugin = fp(
  async (app: FastifyInstance) => {
    app.decorateRequest('rawBody', null);
    app.removeContentTypeParser(['application/json', 'text/plain']);
    app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
      try {
        // Kept as sent: a request signature is over these bytes, not over a re-serialisation.
        request.rawBody = body as Buffer;
        done(null, parseJsonBody(request, body as Buffer));
      } catch (error) {
        done(error as Error, undefined);
      }
    });
  },
  { name: 'json-only' },
);

function parseJsonBody(request: FastifyRequest, body: Buffer): unknown {
  const charset = CHARSET.exec(request.headers['content-type'] ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new AppError(
      'UNSUPPORTED_MEDIA_TYPE',
      `Send the body as UTF-8 (charset=utf-8, or no charset), not ${charset}`,
    );
  }
  if (body.length === 0) {
    if (request.routeOptions.schema?.body === undefined) return undefined;
    throw new AppError('INVALID_JSON', 'The body is empty; send a JSON object');
  }
  let text: string;
  try {
    text = UTF8.decode(body);
  } catch {
    throw new AppError('INVALID_JSON', 'The body is not valid UTF-8');
  }
  try {
    return secureJsonParse(text, null, { protoAction: 'error', constructorAction: 'error' });
  } catch {
    // The parser also refuses the keys __proto__ and constructor.prototype, which would
    // otherwise poison object prototypes: say so, since such a body is valid JSON.
    throw new AppError(
      'INVALID_JSON',
      'The body is not valid JSON, or uses a reserved key (__proto__, constructor.prototype)',
    );
  }
}
