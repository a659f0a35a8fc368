// An asset's `matchDetails` in sentences for people (the CLI's `assets show`, the asset page): which
// values linked each pair, who linked a pair by hand and when, and what a veto blocked and why
// ("IP 10.40.0.113 shared with CMDB record fin-ws-0131, vetoed: serial X ≠ Y"). Pure, no Node APIs.

type Details = Record<string, unknown>;

/** A record's name for people, from its id (the caller knows the records). */
export type NameOf = (id: string) => string;

/** One pair or one unlinked host: the sentence, and the notes under it (vetoes, passed-over values). */
export interface Reason {
  hostId: string;
  cmdbAssetId: string | null;
  text: string;
  notes: string[];
}

/** Identifier kinds and rules as people say them. */
const KIND_LABEL: Record<string, string> = {
  serial: 'serial',
  biosUuid: 'BIOS UUID',
  'bios-uuid': 'BIOS UUID',
  mac: 'MAC',
  fqdn: 'FQDN',
  hostname: 'host name',
  ip: 'IP',
};

const label = (kind: unknown) => KIND_LABEL[String(kind)] ?? String(kind);
const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : v === null || v === undefined ? [] : [String(v)]);
const day = (iso: unknown) => (typeof iso === 'string' && iso.length >= 10 ? iso.slice(0, 10) : null);

/** `{ip: ['10.0.0.5']}` → "IP 10.0.0.5"; several kinds joined with "and". */
function valuesOf(byKind: unknown): string {
  if (!byKind || typeof byKind !== 'object') return '';
  return Object.entries(byKind as Details)
    .map(([kind, values]) => `${label(kind)} ${list(values).join(', ')}`)
    .join(' and ');
}

/** A manual link: "linked manually by admin on 2026-11-27" (who and when as far as they were recorded). */
export function manualReason(d: Details): string {
  const by = typeof d.by === 'string' && d.by ? ` by ${d.by}` : '';
  const at = day(d.at);
  return `linked manually${by}${at ? ` on ${at}` : ''}`;
}

/** One veto: the shared value it blocked and the values that disagree. */
export function vetoReason(v: Details, nameOf: NameOf): string {
  const c = (v.conflict as Details | undefined) ?? {};
  const shared = list(v.shared);
  const what = shared.length ? `${label(v.rule)} ${shared.join(', ')} shared` : `${label(v.rule)} match`;
  const record = v.cmdbAssetId ? ` with CMDB record ${nameOf(String(v.cmdbAssetId))}` : '';
  return `${what}${record}, vetoed: ${label(c.kind)} ${list(c.host).join(', ')} ≠ ${list(c.cmdb).join(', ')}`;
}

/** The notes a match leaves beside its result: vetoes, a value several records shared, records other hosts hold. */
function notesOf(d: Details, nameOf: NameOf): string[] {
  const notes = ((d.vetoed as Details[] | undefined) ?? []).map((v) => vetoReason(v, nameOf));
  const pending = (d.passedOver ?? d.pending) as Details | undefined;
  if (pending)
    notes.push(
      `${label(pending.rule)} ${list(pending.value).join(', ')} is shared by ${list(pending.candidates).length} CMDB records (${list(pending.candidates).map(nameOf).join(', ')}): no evidence`,
    );
  const claimed = list(d.claimedByOtherHosts);
  if (claimed.length) notes.push(`${claimed.map(nameOf).join(', ')} hold the address too, but another host is linked to them by a stronger rule`);
  return notes;
}

/** The sentence of one link: what the host and the CMDB record share, or who linked them. */
export function linkReason(l: Details): string {
  if (l.rule === 'manual') return manualReason(l);
  const matched = valuesOf(l.matched);
  const scope = typeof l.scope === 'string' && l.scope ? ` in ${l.scope}` : '';
  return matched ? `same ${matched}${scope}` : `rule ${String(l.rule)}`;
}

/** Why a host is in no pair: ambiguous (with its candidates), or nothing matched. */
function unmatchedReason(u: Details, nameOf: NameOf): string {
  if (u.status === 'ambiguous') {
    const candidates = list(u.candidates).map(nameOf);
    const others = list(u.otherHosts);
    if (others.length)
      return `not linked: ${valuesOf(u.ambiguous)} is also held by ${others.length === 1 ? 'another scanner host' : `${others.length} other scanner hosts`} (${others.map(nameOf).join(', ')})`;
    return `not linked: ${valuesOf(u.ambiguous)} matches ${candidates.length} CMDB records (${candidates.join(', ')})`;
  }
  return 'not linked to a CMDB record';
}

/** The asset's links and unlinked hosts in sentences, with their notes. */
export function matchReasons(details: Details, nameOf: NameOf): Reason[] {
  const links = (details.links as Details[] | undefined) ?? [];
  const unmatched = (details.unmatched as Details[] | undefined) ?? [];
  return [
    ...links.map((l) => ({ hostId: String(l.hostId), cmdbAssetId: String(l.cmdbAssetId), text: linkReason(l), notes: notesOf(l, nameOf) })),
    ...unmatched.map((u) => ({ hostId: String(u.hostId), cmdbAssetId: null, text: unmatchedReason(u, nameOf), notes: notesOf(u, nameOf) })),
  ];
}
