// Installed software from plugin 20811 (Windows, WMI/registry) and 22869 (SSH package lists).

export interface SoftwareItem {
  name: string;
  version: string | null;
}

const WIN_LINE = /^(.*?)(?:\s+\[version ([^\]]*)\])?(?:\s+\[installed on ([^\]]*)\])?\s*$/;

/**
 * 20811: a header line, a blank line, then `<Name>  [version <v>]  [installed on <date>]` per product
 * (both bracket parts optional). A later "updates are installed" section (KB numbers) is not software.
 */
export function parseWindowsSoftware(output: string): SoftwareItem[] {
  const out: SoftwareItem[] = [];
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '') continue;
    if (/^the following software (are|is) installed/i.test(line)) continue;
    if (/^the following updates are installed/i.test(line)) break;
    const m = WIN_LINE.exec(line);
    const name = m?.[1]?.trim();
    if (!name) continue;
    out.push({ name, version: m?.[2]?.trim() || null });
  }
  return dedupe(out);
}

/** Splits an RPM "name-version-release" into name and "version-release". */
export function splitRpm(nvr: string): SoftwareItem {
  const m = /^(.+)-([^-]+)-([^-]+)$/.exec(nvr);
  if (!m) return { name: nvr, version: null };
  return { name: m[1]!, version: `${m[2]}-${m[3]}` };
}

/**
 * 22869: `Here is the list of packages installed on the remote <OS> system :`, a blank line, then one
 * package per indented line. RPM: `name-version-release|epoch`; dpkg: `ii  name  version  arch  desc`;
 * others (macOS, Solaris): `Name  [version v]` or a bare name.
 */
export function parseUnixSoftware(output: string): SoftwareItem[] {
  const out: SoftwareItem[] = [];
  if (/there are no packages installed/i.test(output)) return out;
  for (const raw of output.split('\n')) {
    const line = raw.trim();
    if (line === '' || /^here is the list of packages/i.test(line)) continue;
    if (/^(desired|\|\/ err|\|\|\/|\+\+\+-)/i.test(line)) continue; // dpkg table header lines
    const dpkg = /^([a-z][a-z ]?[a-z]?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    if (dpkg && /^(ii|hi|rc|iu|un|pn|ri)$/i.test((dpkg[1] ?? '').trim())) {
      out.push({ name: dpkg[2]!.replace(/:[a-z0-9_]+$/i, ''), version: dpkg[3] ?? null });
      continue;
    }
    const bar = line.indexOf('|');
    if (bar > 0 && !line.includes(' ')) {
      const item = splitRpm(line.slice(0, bar));
      const ep = line.slice(bar + 1).trim();
      if (item.version && ep && ep !== '(none)' && /^\d+$/.test(ep)) item.version = `${ep}:${item.version}`;
      out.push(item);
      continue;
    }
    const br = /^(.*?)\s+\[version ([^\]]*)\]/.exec(line);
    if (br) {
      out.push({ name: br[1]!.trim(), version: br[2]!.trim() || null });
      continue;
    }
    if (!line.includes(' ') && /-\d/.test(line)) {
      out.push(splitRpm(line));
      continue;
    }
    out.push({ name: line, version: null });
  }
  return dedupe(out);
}

function dedupe(items: SoftwareItem[]): SoftwareItem[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const k = `${i.name}\u0000${i.version ?? ''}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
