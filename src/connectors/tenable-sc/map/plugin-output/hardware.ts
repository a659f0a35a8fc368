// Hardware from plugin 24270 (Windows WMI) and 35351 (dmidecode).
import { keyValue } from './text.ts';

export interface Hardware {
  manufacturer?: string;
  model?: string;
  serialNumber?: string;
}

const JUNK = /^(to be filled by o\.e\.m\.|not specified|system serial number|default string|none|n\/a|0+|system manufacturer|system product name|unknown)$/i;

function clean(v: string | null): string | undefined {
  if (!v) return undefined;
  const s = v.trim();
  return s === '' || JUNK.test(s) ? undefined : s;
}

/** 24270: `Computer Manufacturer : …`, `Computer Model : …`, `Computer SerialNumber : …`. */
export function parseWindowsHardware(output: string): Hardware {
  const hw: Hardware = {};
  const manufacturer = clean(keyValue(output, 'Computer Manufacturer'));
  const model = clean(keyValue(output, 'Computer Model'));
  const serial = clean(keyValue(output, /Computer Serial ?Number/));
  if (manufacturer) hw.manufacturer = manufacturer;
  if (model) hw.model = model;
  if (serial) hw.serialNumber = serial;
  return hw;
}

/** 35351: the `System Information` section's Manufacturer / Product Name / Serial Number lines. */
export function parseDmiHardware(output: string): Hardware {
  const sections = new Map<string, string>();
  let current = '';
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    if (!/^\s/.test(line) && !line.includes(':')) {
      current = line.trim().toLowerCase();
      continue;
    }
    sections.set(current, `${sections.get(current) ?? ''}${line}\n`);
  }
  const sys = sections.get('system information') ?? '';
  const chassis = sections.get('chassis information') ?? '';
  const hw: Hardware = {};
  const manufacturer = clean(keyValue(sys, 'Manufacturer')) ?? clean(keyValue(chassis, 'Manufacturer'));
  const model = clean(keyValue(sys, 'Product Name'));
  const serial = clean(keyValue(sys, 'Serial Number')) ?? clean(keyValue(chassis, 'Serial Number'));
  if (manufacturer) hw.manufacturer = manufacturer;
  if (model) hw.model = model;
  if (serial) hw.serialNumber = serial;
  return hw;
}
