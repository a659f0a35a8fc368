// What a ticket names: CVE IDs, plugin IDs, IP addresses and host-name-like tokens (host names, FQDNs,
// asset tags) in its subject and description. Pure; the store resolves them to assets and findings.
// Plugin ids are named by the words connectors declare (core/references.ts).
import { pluginIdPattern } from '../core/references.ts';
import { decodeEntities } from '../core/values.ts';
import { normFqdn, normIp, shortName } from './normalize.ts';

export interface Mentions {
  cves: string[];
  plugins: string[];
  ips: string[];
  /** Short host names (lower case) and FQDNs named. */
  hostnames: string[];
  fqdns: string[];
  /** Tokens as written, for asset tags. */
  tokens: string[];
}

/** HTML descriptions (a service desk sends `<div>…</div>`) as plain text. */
export function plainText(html: string): string {
  return decodeEntities(
    html
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<[^>]*>/g, ' ')
      .replace(/&nbsp;/g, ' '),
  );
}

const uniq = (xs: (string | null)[]) => [...new Set(xs.filter((x): x is string => x !== null))];

export function mentionsOf(subject: string | null, description: string | null): Mentions {
  const text = `${subject ?? ''}\n${plainText(description ?? '')}`;
  const cves = uniq([...text.matchAll(/\bCVE-(\d{4})-(\d{4,7})\b/gi)].map((m) => `CVE-${m[1]}-${m[2]}`));
  const plugins = uniq([...text.matchAll(pluginIdPattern())].map((m) => m[1]!));
  const ips = uniq([...text.matchAll(/\b\d{1,3}(?:\.\d{1,3}){3}\b/g)].map((m) => normIp(m[0])));
  // Host names, FQDNs and asset tags carry a digit or a hyphen; plain words ("printer", "the") are no names.
  const raw = [...text.matchAll(/(?:[A-Za-z0-9-]+\\)?[A-Za-z0-9][A-Za-z0-9_-]*(?:\.[A-Za-z0-9-]+)*\.?/g)]
    .map((m) => m[0].replace(/\.+$/, ''))
    .filter((t) => t.length >= 3 && /[0-9-]/.test(t) && !/^CVE-/i.test(t) && normIp(t) === null && !/^\d+([.-]\d+)*$/.test(t));
  return {
    cves,
    plugins,
    ips,
    hostnames: uniq(raw.map(shortName)),
    fqdns: uniq(raw.map(normFqdn)),
    tokens: uniq(raw),
  };
}
