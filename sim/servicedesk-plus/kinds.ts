// Record kinds of the simulator and their ids: cloud ids are long and carry a kind code, on-prem ids
// are small integers, so the same index reads as either flavour.

export type Flavour = 'cloud' | 'onprem';

export const KINDS = ['requests', 'assets', 'technicians', 'requesters', 'service_categories', 'ci_computer', 'ci_database', 'ci_business_service'] as const;
export type KindName = (typeof KINDS)[number];

export function isKind(s: string): s is KindName {
  return (KINDS as readonly string[]).includes(s);
}

export type Json = Record<string, unknown>;

const KIND_CODE: Record<KindName, number> = {
  requests: 10,
  assets: 20,
  technicians: 30,
  requesters: 31,
  service_categories: 40,
  ci_computer: 51,
  ci_database: 52,
  ci_business_service: 53,
};
/** On-prem ids are small integers; users and technicians share one id space like the real users table. */
const ONPREM_BASE: Record<KindName, number> = {
  requests: 1,
  assets: 301,
  technicians: 4,
  requesters: 1004,
  service_categories: 1,
  ci_computer: 10001,
  ci_database: 20001,
  ci_business_service: 30001,
};

export function idOf(kind: KindName, i: number, flavour: Flavour): string {
  if (flavour === 'onprem') return String(ONPREM_BASE[kind] + i);
  return `12364000${KIND_CODE[kind]}${String(i).padStart(8, '0')}`;
}

/** Index of an id in either flavour, or -1. */
export function indexOf(kind: KindName, id: string): number {
  const cloud = /^12364000(\d\d)(\d{8})$/.exec(id);
  if (cloud) return Number(cloud[1]) === KIND_CODE[kind] ? Number(cloud[2]) : -1;
  if (!/^\d{1,9}$/.test(id)) return -1;
  return Number(id) - ONPREM_BASE[kind];
}
