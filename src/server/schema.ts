// Route schemas from the shared zod shapes (src/core/api-shapes.ts): the JSON schema Fastify validates,
// serializes and documents with (in the same dialect the hand-written ones used), typed by its zod source.
import type { FastifyTypeProvider } from 'fastify';
import { z } from 'zod';

declare const zodSource: unique symbol;
/** A JSON schema that remembers, in its type only, the zod schema it came from. */
export type RouteSchema<T extends z.ZodType> = Record<string, unknown> & { readonly [zodSource]: T };

/** Fastify's request and reply types read from a route's RouteSchemas (plain JSON schemas stay unknown). */
export interface ShapesProvider extends FastifyTypeProvider {
  validator: this['schema'] extends { readonly [zodSource]: infer T extends z.ZodType } ? z.output<T> : unknown;
  serializer: this['schema'] extends { readonly [zodSource]: infer T extends z.ZodType } ? z.input<T> : unknown;
}

const SAFE = Number.MAX_SAFE_INTEGER;

/** Zod's draft-7 output tidied to the hand-written style: `type: [x, 'null']` for nullables (null in their enum), no safe-integer bounds, formats by name. */
function tidy(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(tidy);
  if (node === null || typeof node !== 'object') return node;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(node)) {
    if (k === '$schema' || (k === 'propertyNames' && (v as { type?: unknown }).type === 'string')) continue;
    if ((k === 'minimum' && v === -SAFE) || (k === 'maximum' && v === SAFE)) continue;
    out[k] = k === 'additionalProperties' && v !== null && typeof v === 'object' && Object.keys(v).length === 0 ? true : tidy(v);
  }
  if (out.format === 'date-time') delete out.pattern; // zod spells the format out as a regex too
  const any = out.anyOf as Record<string, unknown>[] | undefined;
  if (any?.length === 2 && any[1].type === 'null' && Object.keys(any[1]).length === 1 && typeof any[0].type === 'string') {
    const { anyOf: _, ...rest } = out;
    const nullable = { ...any[0], ...rest, type: [any[0].type, 'null'] };
    return Array.isArray(any[0].enum) ? { ...nullable, enum: [...any[0].enum, null] } : nullable;
  }
  return out;
}

/** The route schema of a shared shape. Objects allow unknown keys unless declared strict (z.strictObject). */
export function routeSchema<T extends z.ZodType>(shape: T): RouteSchema<T> {
  return tidy(z.toJSONSchema(shape, { target: 'draft-7', io: 'input', unrepresentable: 'any' })) as RouteSchema<T>;
}
