// TRIBUTARY_TRUST_PROXY → Fastify's trustProxy: which X-Forwarded-For entries are believed. The client
// writes the left-most entries itself, so only the hops added by proxies we run are trusted: a number of
// hops, or the proxies' addresses/CIDRs. `true` means one hop (one reverse proxy in front), never "all".
import { isIP } from 'node:net';
import { InputError } from '../core/errors.ts';

export type TrustProxy = false | number | string[];

/**
 * The value for Fastify's `trustProxy`. A hop count becomes proxy-addr's function form (trust the `n`
 * nearest hops): this Fastify release treats a bare number as "trust nothing" for the address.
 */
export function fastifyTrustProxy(tp: TrustProxy): false | string[] | ((addr: string, hop: number) => boolean) {
  if (typeof tp !== 'number') return tp;
  if (tp === 0) return false;
  return (_addr: string, hop: number) => hop < tp;
}

export function parseTrustProxy(value: string | undefined): TrustProxy {
  const v = (value ?? '').trim();
  if (v === '' || /^(false|no|off|0)$/i.test(v)) return false;
  if (/^(true|yes|on)$/i.test(v)) return 1;
  if (/^\d+$/.test(v)) {
    const n = Number(v);
    if (n > 32)
      throw new InputError(
        `TRIBUTARY_TRUST_PROXY: ${n} hops is implausible; give the number of proxies in front of Tributary (e.g. 1)`,
        'TRIBUTARY_TRUST_PROXY',
      );
    return n;
  }
  const list = v
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  for (const entry of list) {
    const [addr, bits, extra] = entry.split('/');
    const family = isIP(addr ?? '');
    const bitsOk = bits === undefined || (/^\d+$/.test(bits) && Number(bits) <= (family === 6 ? 128 : 32));
    if (!family || !bitsOk || extra !== undefined) {
      throw new InputError(
        `TRIBUTARY_TRUST_PROXY: '${entry}' is neither a number of hops nor an IP address or CIDR (e.g. 1, or 10.0.0.0/8,192.0.2.10)`,
        'TRIBUTARY_TRUST_PROXY',
      );
    }
  }
  return list;
}
