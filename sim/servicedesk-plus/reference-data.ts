// Reference data (statuses, priorities, sites, product types…) that records embed, and how they embed it.
import type { Flavour, Json, KindName } from './kinds.ts';

/** Ids of reference data (statuses, priorities…): small on-prem, long on cloud. */
export function refId(flavour: Flavour, id: string): string {
  return flavour === 'onprem' ? id : `1236400000000${id.padStart(5, '0')}`;
}

/** A reference-data entry as embedded in records: name and flavoured id (plus `extra` fields). */
export function ref<T extends { id: string; name: string }>(flavour: Flavour, r: T, extra: (keyof T)[] = []): Json {
  const out: Json = { name: r.name, id: refId(flavour, r.id) };
  for (const k of extra) out[k as string] = r[k];
  return out;
}

export const STATUSES = [
  { id: '2', name: 'Open', color: '#0066ff', internal_name: 'Open', in_progress: true, stop_timer: false },
  { id: '1', name: 'On Hold', color: '#ff9900', internal_name: 'Onhold', in_progress: true, stop_timer: true },
  { id: '3', name: 'Resolved', color: '#00cc66', internal_name: 'Resolved', in_progress: false, stop_timer: true },
  { id: '4', name: 'Closed', color: '#006600', internal_name: 'Closed', in_progress: false, stop_timer: true },
  { id: '5', name: 'Canceled', color: '#999999', internal_name: 'Canceled', in_progress: false, stop_timer: true },
];
export const PRIORITIES = [
  { id: '1', name: 'Low', color: '#666666' },
  { id: '2', name: 'Normal', color: '#006600' },
  { id: '3', name: 'Medium', color: '#ff9900' },
  { id: '4', name: 'High', color: '#ff0000' },
];
export const REQUEST_TYPES = [
  { id: '1', name: 'Incident' },
  { id: '2', name: 'Request For Information' },
  { id: '3', name: 'Service Request' },
];
export const MODES = [
  { id: '1', name: 'E-Mail' },
  { id: '2', name: 'Web Form' },
  { id: '3', name: 'Phone Call' },
];
export const LEVELS = [1, 2, 3, 4].map((n) => ({ id: String(n), name: `Tier ${n}` }));
export const URGENCIES = [
  { id: '1', name: 'Urgent' },
  { id: '2', name: 'High' },
  { id: '3', name: 'Normal' },
  { id: '4', name: 'Low' },
];
export const IMPACTS = [
  { id: '1', name: 'High' },
  { id: '2', name: 'Medium' },
  { id: '3', name: 'Low' },
  { id: '4', name: 'Affects Group' },
];
export const CATEGORIES = [
  { id: '1', name: 'Hardware', subs: ['Monitor', 'Keyboard', 'Laptop'] },
  { id: '2', name: 'Network', subs: ['VPN', 'Wi-Fi', 'Firewall'] },
  { id: '3', name: 'Software', subs: ['MS Office', 'Browser', 'ERP'] },
  { id: '4', name: 'Access', subs: ['Password Reset', 'New Account'] },
];
export const GROUPS = [
  { id: '1', name: 'Network' },
  { id: '2', name: 'Hardware Problems' },
  { id: '3', name: 'Service Desk' },
];
export const SITES = [
  { id: '301', name: 'Test Site' },
  { id: '302', name: 'HQ' },
  { id: '303', name: 'Branch Office' },
];
export const DEPARTMENTS = ['Finance', 'Engineering', 'Sales', 'IT', 'Human Resources'];
export const SERVICE_CATEGORY_NAMES = [
  'User Management',
  'Communication',
  'Data Management',
  'Hardware',
  'Software',
  'Facilities',
  'Access Management',
  'Network Services',
];
export const SUBJECTS = [
  'VPN drops every hour',
  'Request about monitor',
  'Cannot print to 3F printer',
  'Outlook keeps asking for password',
  'New laptop for onboarding',
  'Wi-Fi slow in meeting room',
  'ERP report fails',
  'Access to shared drive',
  'Server disk almost full',
  'Phone headset broken',
];
export const FIRST = ['Ana', 'Bo', 'Chen', 'Dara', 'Eli', 'Farah', 'Gus', 'Hana', 'Ivo', 'Jun', 'Kai', 'Lena', 'Mo', 'Nia', 'Omar', 'Pia'];
export const LAST = ['Ruiz', 'Chen', 'Okafor', 'Smith', 'Novak', 'Haddad', 'Kim', 'Berg', 'Rossi', 'Tanaka', 'Silva', 'Moreau'];
export const PRODUCT_TYPES = [
  { id: '14', name: 'Laptop', internal_name: 'Laptop', products: ['Latitude 7440', 'ThinkPad T14', 'MacBook Pro 14'], makers: ['Dell', 'Lenovo', 'Apple'] },
  { id: '15', name: 'Workstation', internal_name: 'Workstation', products: ['OptiPlex 7010', 'ThinkCentre M90'], makers: ['Dell', 'Lenovo'] },
  { id: '16', name: 'Server', internal_name: 'Server', products: ['PowerEdge R650', 'ProLiant DL380'], makers: ['Dell', 'HPE'] },
  { id: '17', name: 'Monitor', internal_name: 'Monitor', products: ['U2723QE', 'P27h'], makers: ['Dell', 'Lenovo'] },
  { id: '18', name: 'Keyboard', internal_name: 'Keyboard', products: ['keyboardMC', 'K120'], makers: ['Microsoft', 'Logitech'] },
];
export const ASSET_STATES = [
  { id: '2', name: 'In Use' },
  { id: '1', name: 'In Store' },
  { id: '3', name: 'In Repair' },
  { id: '5', name: 'Disposed' },
];

export const CI_TYPES: { kind: KindName; id: string; name: string; api_name: string; api_plural_name: string }[] = [
  { kind: 'ci_computer', id: '101', name: 'Computer', api_name: 'ci_computer', api_plural_name: 'ci_computers' },
  { kind: 'ci_database', id: '102', name: 'Database', api_name: 'ci_database', api_plural_name: 'ci_databases' },
  { kind: 'ci_business_service', id: '103', name: 'Business Service', api_name: 'ci_business_service', api_plural_name: 'ci_business_services' },
];
