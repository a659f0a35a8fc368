// Console users and x-apikey parsing. Keys are deterministic from the seed so runs are repeatable.
import { hex, strHash } from './hash.ts';
import type { SimCredentials } from './options.ts';

export interface SimUser extends SimCredentials {
  id: string;
  uuid: string;
  firstname: string;
  lastname: string;
  isAdmin: boolean;
  role: { id: string; name: string; description: string };
  /** The Administrator's organization id is the JSON number 0, as on real consoles. */
  organization: { id: string | number; name: string; description: string };
  group: { id: string; name: string; description: string } | null;
}

export const ORGANIZATION = { id: '1', name: 'Tributary Labs', description: 'Simulated organization' };
export const ANALYST_GROUP = { id: '2', name: 'Vulnerability Team', description: 'Analysts who read scan results' };

export function buildUsers(seed: number): { analyst: SimUser; admin: SimUser } {
  const key = (label: string) => hex(32, seed, strHash(label));
  const uuid = (label: string) => {
    const h = key(`uuid-${label}`);
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20, 32)}`.toUpperCase();
  };
  return {
    analyst: {
      id: '5',
      uuid: uuid('analyst'),
      username: 'svc-tributary',
      firstname: 'Tributary',
      lastname: 'Connector',
      accessKey: key('analyst-access'),
      secretKey: key('analyst-secret'),
      isAdmin: false,
      role: { id: '3', name: 'Security Analyst', description: 'Role for analysts who review vulnerability data' },
      organization: ORGANIZATION,
      group: ANALYST_GROUP,
    },
    admin: {
      id: '1',
      uuid: uuid('admin'),
      username: 'admin',
      firstname: 'Console',
      lastname: 'Administrator',
      accessKey: key('admin-access'),
      secretKey: key('admin-secret'),
      isAdmin: true,
      role: { id: '1', name: 'Administrator', description: 'Role defining an administrator of the application' },
      organization: { id: 0, name: 'Tenable.sc Administration', description: '' },
      group: null,
    },
  };
}

/**
 * Parses `accesskey=<a>; secretkey=<s>[;]`. Key names are case-insensitive, the space after `;` and the
 * trailing `;` are optional. Returns null when either part is missing.
 */
export function parseApiKeyHeader(value: string | string[] | undefined): { accessKey: string; secretKey: string } | null {
  if (typeof value !== 'string') return null;
  let accessKey: string | undefined;
  let secretKey: string | undefined;
  for (const part of value.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim().toLowerCase();
    const v = part.slice(eq + 1).trim();
    if (name === 'accesskey') accessKey = v;
    else if (name === 'secretkey') secretKey = v;
  }
  return accessKey && secretKey ? { accessKey, secretKey } : null;
}
