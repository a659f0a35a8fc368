// Numeric query and path parameters are bounded whole numbers, checked as written before the schema
// coerces them: the schema validator turns "1e309" or a 400-digit number into Infinity and then skips
// minimum and maximum (they only test finite numbers), so such a value once reached the SQL text and
// answered 500. Every integer parameter must declare both bounds (a route without them fails when it
// is added, so a new one cannot slip through), and a value that is not a plain whole number within
// them answers 400 naming the bounds.
import type { FastifyInstance, FastifyRequest, RouteOptions } from 'fastify';
import { InputError } from '../core/errors.ts';

interface Bounds {
  min: number;
  max: number;
}

type Props = Record<string, { type?: unknown; minimum?: unknown; maximum?: unknown; items?: { type?: unknown; minimum?: unknown; maximum?: unknown } }>;

const isInteger = (type: unknown): boolean => type === 'integer' || (Array.isArray(type) && type.includes('integer'));
const isNumeric = (type: unknown): boolean => isInteger(type) || type === 'number' || (Array.isArray(type) && type.includes('number'));

/** At most 16 digits: every bound fits, and the value stays an exact integer. */
const WHOLE = /^[-+]?\d{1,16}$/;

/** "query parameter 'offset' must be a whole number from 0 to 1000000". */
export function boundsMessage(where: string, name: string, b: Bounds): string {
  return `${where} '${name}' must be a whole number from ${b.min} to ${b.max}`;
}

/** The bounded integer parameters of one part of a route's schema; throws on one without both bounds. */
function integerParams(route: RouteOptions, props: Props | undefined): Map<string, Bounds> {
  const out = new Map<string, Bounds>();
  for (const [name, p] of Object.entries(props ?? {})) {
    const s = p.type === 'array' && p.items ? p.items : p;
    if (!isNumeric(s.type)) continue;
    if (!isInteger(s.type) || typeof s.minimum !== 'number' || typeof s.maximum !== 'number')
      throw new Error(`route ${String(route.method)} ${route.url}: parameter '${name}' must be an integer with a minimum and a maximum`);
    out.set(name, { min: s.minimum, max: s.maximum });
  }
  return out;
}

function check(values: unknown, where: string, bounded: Map<string, Bounds>): void {
  if (!values || typeof values !== 'object') return;
  for (const [name, b] of bounded) {
    const v = (values as Record<string, unknown>)[name];
    for (const one of Array.isArray(v) ? v : v === undefined ? [] : [v]) {
      const text = String(one).trim();
      const n = WHOLE.test(text) ? Number(text) : Number.NaN;
      if (!(n >= b.min && n <= b.max)) {
        const shown = text.length > 24 ? `${text.slice(0, 20)}… (${text.length} characters)` : text;
        throw new InputError(`${boundsMessage(where, name, b)}, got '${shown}'`, name);
      }
    }
  }
}

/** Adds the check to every route added after it (register it before the routes). */
export function boundNumericParams(f: FastifyInstance): void {
  f.addHook('onRoute', (route) => {
    const schema = route.schema as { querystring?: { properties?: Props }; params?: { properties?: Props } } | undefined;
    const query = integerParams(route, schema?.querystring?.properties);
    const params = integerParams(route, schema?.params?.properties);
    if (query.size === 0 && params.size === 0) return;
    const hook = async (req: FastifyRequest) => {
      check(req.query, 'query parameter', query);
      check(req.params, 'path parameter', params);
    };
    const existing = route.preValidation;
    route.preValidation = existing === undefined ? [hook] : [...(Array.isArray(existing) ? existing : [existing]), hook];
  });
}
