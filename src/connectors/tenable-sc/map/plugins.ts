// A plugin's own data (name, family, text, scores, references, dates) → one `plugins` record, from a
// `vulndetails` row (API, or a CSV row rebuilt as one) or a `/rest/plugin` object (`id`, `name`,
// `xrefs`); and what a finding carries of it (family, exploit flag, the capped proof).
import type { FieldsOf, RecordOf } from '../../../core/models.ts';
import { parseJsonLimited } from '../../../core/json-depth.ts';
import { pluginOutput } from './plugin-output/text.ts';
import { bool, epochToIso, list, num, refName, text } from './values.ts';

/** Default cap of a finding's proof (plugin output), in UTF-8 bytes; `proofMaxBytes` in the source's config. */
export const PROOF_MAX_BYTES = 16 * 1024;

export interface DetailOptions {
  proofMaxBytes?: number;
}

const CVE = /CVE-\d{4}-\d{4,}/gi;

/** VPR key drivers: the `vprContext` JSON string of [{id, name, type, value}] as objects; null when none. */
export function vprDrivers(v: unknown): { id: string; name: string | null; value: unknown }[] | null {
  let parsed: unknown = v;
  if (typeof v === 'string') {
    try {
      parsed = parseJsonLimited(v).value;
    } catch {
      return null;
    }
  }
  if (!Array.isArray(parsed)) return null;
  const out = parsed
    .filter((d): d is Record<string, unknown> => !!d && typeof d === 'object' && typeof (d as { id?: unknown }).id === 'string')
    .map((d) => ({ id: String(d.id), name: text(d.name), value: d.value ?? null }));
  return out.length > 0 ? out : null;
}

/** The plugin record of a row; null without a plugin id. */
export function mapPlugin(row: Record<string, unknown>): RecordOf<'plugins'> | null {
  const pluginId = text(row.pluginID) ?? text(row.id);
  if (!pluginId || !/^\d+$/.test(pluginId)) return null;
  const xrefText = text(row.xref) ?? text(row.xrefs);
  const cves = [...new Set(`${text(row.cve) ?? ''} ${xrefText ?? ''}`.match(CVE)?.map((c) => c.toUpperCase()) ?? [])];
  return {
    key: pluginId,
    externalId: pluginId,
    fields: {
      pluginId,
      name: text(row.pluginName) ?? text(row.name),
      family: refName(row.family) ?? text(row.family),
      synopsis: text(row.synopsis),
      description: text(row.description),
      solution: text(row.solution),
      seeAlso: list(row.seeAlso, /\s+/),
      riskFactor: text(row.riskFactor),
      cvssV2BaseScore: num(row.baseScore),
      cvssV2Vector: text(row.cvssVector),
      cvssV3BaseScore: num(row.cvssV3BaseScore),
      cvssV3Vector: text(row.cvssV3Vector),
      cvssV4BaseScore: num(row.cvssV4BaseScore),
      cvssV4Vector: text(row.cvssV4Vector),
      vprScore: num(row.vprScore),
      vprDrivers: vprDrivers(row.vprContext),
      epssScore: num(row.epssScore),
      exploitAvailable: bool(row.exploitAvailable),
      exploitFrameworks: list(row.exploitFrameworks, /\s*[,\n]\s*/),
      cves,
      xrefs: list(xrefText, /\s*,\s*/),
      pluginPublished: epochToIso(row.pluginPubDate),
      pluginModified: epochToIso(row.pluginModDate),
      vulnPublished: epochToIso(row.vulnPubDate),
      patchPublished: epochToIso(row.patchPubDate),
      checkType: text(row.checkType),
    },
  };
}

/** At most `max` UTF-8 bytes of `s`, cut at a character boundary. */
export function capUtf8(s: string, max: number): { text: string; truncated: boolean } {
  // A UTF-16 unit is at most 3 UTF-8 bytes: most outputs need no byte count.
  if (s.length * 3 <= max || Buffer.byteLength(s, 'utf8') <= max) return { text: s, truncated: false };
  const cut = Buffer.from(s, 'utf8').subarray(0, Math.max(0, max)).toString('utf8');
  return { text: cut.replace(/\uFFFD+$/, ''), truncated: true };
}

/** What a finding carries of its plugin (its synopsis and solution are read from the plugin record), and the scanner's proof (plugin output without its wrapper, capped). */
export function findingDetail(row: Record<string, unknown>, opts: DetailOptions = {}): FieldsOf<'vulnerabilities'> {
  const out = pluginOutput(row.pluginText);
  const proof = out === '' ? null : capUtf8(out, opts.proofMaxBytes ?? PROOF_MAX_BYTES);
  return {
    pluginFamily: refName(row.family) ?? text(row.family),
    proof: proof?.text ?? null,
    proofTruncated: proof?.truncated ?? false,
    exploitAvailable: bool(row.exploitAvailable),
  };
}
