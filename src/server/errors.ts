// Every API error is JSON `{error: {code, message, field}}`: the core error classes map to 400/404/409,
// schema validation failures name the offending field, Fastify's own client errors (oversized or
// malformed bodies) keep their status, and anything unexpected is a 500 without a stack trace.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { ConflictError, ForbiddenError, InputError, NotFoundError } from '../core/errors.ts';
import { scrubSecrets } from '../core/secrets.ts';
import type { z } from 'zod';
import { errorBody } from '../core/api-shapes.ts';
import { routeSchema } from './schema.ts';

export class ApiError extends Error {
  readonly status: number;
  readonly code: string;
  readonly field: string | null;
  readonly extra: Record<string, unknown> | null;
  constructor(status: number, code: string, message: string, field: string | null = null, extra: Record<string, unknown> | null = null) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.code = code;
    this.field = field;
    this.extra = extra;
  }
}

export type ErrorBody = z.infer<typeof errorBody>;

/** JSON schema of the error body, for route documentation. */
export const errorSchema = routeSchema(errorBody);

const FASTIFY_CODES: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  406: 'not_acceptable',
  413: 'body_too_large',
  414: 'uri_too_long',
  415: 'unsupported_media_type',
  429: 'too_many_requests',
  431: 'headers_too_large',
};

interface ValidationIssue {
  keyword: string;
  instancePath: string;
  params: Record<string, unknown>;
  message?: string;
}

/** The field a schema validation issue is about: `config`, `name`, `limit`… */
function issueField(v: ValidationIssue): string | null {
  const path = v.instancePath.replace(/^\//, '').split('/').filter(Boolean).join('.');
  const leaf = (v.params.missingProperty ?? v.params.additionalProperty) as string | undefined;
  if (leaf) return path ? `${path}.${leaf}` : leaf;
  return path || null;
}

function validationMessage(context: string, v: ValidationIssue, field: string | null): string {
  const where = context === 'querystring' ? 'query parameter' : context === 'params' ? 'path parameter' : context === 'headers' ? 'header' : 'field';
  if (v.keyword === 'required') return `${where} '${field}' is required`;
  if (v.keyword === 'additionalProperties') return `unknown ${where} '${field}'`;
  return field ? `${where} '${field}' ${v.message ?? 'is invalid'}` : `${context} ${v.message ?? 'is invalid'}`;
}

export function toErrorResponse(err: unknown): { status: number; body: ErrorBody; headers: Record<string, string> } {
  const make = (status: number, code: string, message: string, field: string | null = null, extra: Record<string, unknown> | null = null) => ({
    status,
    body: { error: { code, message: scrubSecrets(message), field, ...(extra ?? {}) } },
    headers: {} as Record<string, string>,
  });
  if (err instanceof ApiError) {
    const r = make(err.status, err.code, err.message, err.field, err.extra);
    if (err.status === 429 && typeof err.extra?.retryAfter === 'number') r.headers['retry-after'] = String(err.extra.retryAfter);
    return r;
  }
  if (err instanceof ForbiddenError) return make(403, 'forbidden', err.message, err.field);
  if (err instanceof InputError) return make(400, 'invalid_input', err.message, err.field);
  if (err instanceof NotFoundError) return make(404, 'not_found', err.message);
  if (err instanceof ConflictError) return make(409, 'conflict', err.message);
  const fe = err as FastifyError & { validation?: ValidationIssue[]; validationContext?: string };
  if (Array.isArray(fe.validation) && fe.validation.length) {
    const v = fe.validation[0];
    const field = issueField(v);
    return make(400, 'invalid_input', validationMessage(fe.validationContext ?? 'body', v, field), field);
  }
  const status = typeof fe.statusCode === 'number' ? fe.statusCode : 500;
  if (status >= 400 && status < 500) {
    if (fe.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return make(413, 'body_too_large', 'request body is larger than the limit (1 MiB)', 'body');
    if (fe.code === 'FST_ERR_CTP_INVALID_JSON_BODY' || fe instanceof SyntaxError)
      return make(400, 'invalid_json', 'the request body is not valid JSON', 'body');
    return make(status, FASTIFY_CODES[status] ?? 'bad_request', fe.message || 'bad request', status === 415 || status === 400 ? 'body' : null);
  }
  return make(500, 'internal', 'internal error; see the server log');
}

export function errorHandler(err: unknown, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const { status, body, headers } = toErrorResponse(err);
  if (status >= 500) {
    const e = err as Error;
    req.log.error({ err: { type: e?.name, message: scrubSecrets(String(e?.message ?? err)), stack: scrubSecrets(String(e?.stack ?? '')) } }, 'request failed');
  } else if (status !== 401 && status !== 404) {
    req.log.info({ status, code: body.error.code, field: body.error.field }, 'request refused');
  }
  return reply.code(status).headers(headers).type('application/json; charset=utf-8').send(body);
}

export function notFoundHandler(req: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = req.url.split('?')[0];
  return errorHandler(new ApiError(404, 'not_found', `no route ${req.method} ${path}`), req, reply);
}
