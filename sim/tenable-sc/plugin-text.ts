// pluginText builders. Inventory outputs follow fact sheet §8 exactly because the connector parses
// them; vulnerability outputs only need to look plausible. Every text is wrapped in <plugin_output>.
import type { PluginDef } from './catalog.ts';
import type { HostDetails } from './host-details.ts';
import { complianceCheckOf, type HostSkeleton } from './hosts.ts';
import { mix } from './hash.ts';

const wrap = (body: string) => `<plugin_output>${body}</plugin_output>`;

function windowsSoftware(d: HostDetails): string {
  return `\nThe following software are installed on the remote host :\n\n${d.software.join('\n')}\n`;
}

function unixSoftware(d: HostDetails): string {
  if (d.software.length === 0) return `\nThere are no packages installed on the remote ${d.softwareOsName} system.\n`;
  return `\nHere is the list of packages installed on the remote ${d.softwareOsName} system :\n\n${d.software.map((s) => `  ${s}`).join('\n')}\n`;
}

function windowsHardware(d: HostDetails): string {
  const hw = d.hardware!;
  return [
    '',
    `  Computer Manufacturer : ${hw.manufacturer}`,
    `  Computer Model : ${hw.model}`,
    `  Computer SerialNumber : ${hw.serial}`,
    `  Computer Type : ${hw.chassis}`,
    '',
    `  Computer Physical CPU's : ${hw.cpus}`,
    `  Computer Logical CPU's : ${hw.cpus * 8}`,
    '',
    `  Computer Memory : ${hw.memoryMb} MB`,
    '',
  ].join('\n');
}

function dmiLine(key: string, value: string): string {
  return `  ${key.padEnd(13)} : ${value}`;
}

function unixHardware(d: HostDetails): string {
  const hw = d.hardware!;
  return [
    '',
    'System Information',
    dmiLine('Manufacturer', hw.manufacturer),
    dmiLine('Product Name', hw.model),
    dmiLine('Version', ''),
    dmiLine('Serial Number', hw.serial),
    dmiLine('Family', hw.family),
    '',
    'Chassis Information',
    dmiLine('Manufacturer', hw.manufacturer),
    dmiLine('Type', hw.chassis),
    dmiLine('Lock', 'Not Present'),
    dmiLine('Version', ''),
    dmiLine('Serial Number', hw.serial),
    '',
  ].join('\n');
}

function osIdentification(d: HostDetails): string {
  return `\nRemote operating system : ${d.operatingSystem}\nConfidence level : ${d.osConfidence}\nMethod : ${d.osMethod}\n`;
}

function macList(d: HostDetails): string {
  let out = `\nThe following is a consolidated list of detected MAC addresses:\n${d.macs.map((m) => `  - ${m.toUpperCase()}`).join('\n')}\n`;
  if (d.unreliableMacs.length > 0)
    out += `\nThe following is a list of potentially unreliable MAC addresses:\n${d.unreliableMacs.map((m) => `  - ${m}`).join('\n')}\n`;
  return out;
}

function portText(sk: HostSkeleton, slot: number, protocol: string): string {
  if (sk.aux[slot] < 0) return `\nNessus was able to find ${sk.ports.length} open ports.\n`;
  return `\nPort ${sk.port[slot]}/${protocol.toLowerCase()} was found to be open\n`;
}

function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function complianceText(sk: HostSkeleton, slot: number): string {
  const { check, results } = complianceCheckOf(sk, slot);
  const actual = (result: string) => (result === 'PASSED' ? check.passingValue : result === 'ERROR' ? 'Unable to read the setting' : check.failingValue);
  const lines = [
    `<cm:compliance-check-name>${escapeXml(check.checkName)}</cm:compliance-check-name>`,
    `<cm:compliance-audit-file>${check.auditFile}</cm:compliance-audit-file>`,
    `<cm:compliance-info>${escapeXml(check.plugin.description)}</cm:compliance-info>`,
  ];
  for (const result of results) {
    lines.push(`<cm:compliance-result>${result}</cm:compliance-result>`);
    lines.push(`<cm:compliance-actual-value>${escapeXml(actual(result))}</cm:compliance-actual-value>`);
  }
  lines.push(`<cm:compliance-policy-value>${escapeXml(check.policyValue)}</cm:compliance-policy-value>`);
  lines.push(`<cm:compliance-reference>${check.reference}</cm:compliance-reference>`);
  lines.push(`<cm:compliance-solution>${check.plugin.solution}</cm:compliance-solution>`);
  return `\n${lines.join('\n')}\n`;
}

function vulnText(def: PluginDef, sk: HostSkeleton, d: HostDetails, slot: number): string {
  const h = mix(sk.seedHash, def.id);
  switch (def.textKind) {
    case 'kb': {
      const build = 17763 + (h % 5000);
      return `\n  - ${def.product}\n\nC:\\Windows\\system32\\ntoskrnl.exe has not been patched.\n    Remote version : 10.0.${build}.${h % 900}\n    Should be      : 10.0.${build}.${(h % 900) + 40}\n`;
    }
    case 'app': {
      const [app, fixed] = def.product.split('|');
      return `\n  Path              : C:\\Program Files\\${app}\\\n  Installed version : ${fixed.split('.')[0]}.0.${h % 50}\n  Fixed version     : ${fixed}\n`;
    }
    case 'pkg':
      return `\nRemote package installed : ${def.product}-${1 + (h % 9)}.${h % 30}.${h % 7}\nShould be                : ${def.product}-${1 + (h % 9)}.${h % 30}.${(h % 7) + 1}\n`;
    case 'banner':
      return `\nThe remote web server type is :\n\n${def.product}\n`;
    default:
      return `\nThe remote service on port ${sk.port[slot]} (${d.ip}) responded in a way that indicates: ${def.name}.\n`;
  }
}

export function buildPluginText(def: PluginDef, sk: HostSkeleton, d: HostDetails, slot: number, protocol: string): string {
  switch (def.textKind) {
    case 'sw-windows':
      return wrap(windowsSoftware(d));
    case 'sw-unix':
      return wrap(unixSoftware(d));
    case 'hw-windows':
      return wrap(windowsHardware(d));
    case 'hw-unix':
      return wrap(unixHardware(d));
    case 'last-user':
      return wrap(`\nLast Successful logon : ${d.lastUser}\n`);
    case 'os':
      return wrap(osIdentification(d));
    case 'macs':
      return wrap(macList(d));
    case 'port':
      return wrap(portText(sk, slot, protocol));
    case 'compliance':
      return wrap(complianceText(sk, slot));
    default:
      return wrap(vulnText(def, sk, d, slot));
  }
}
