// Open ports from the port scanners (34220 netstat WMI, 14272 netstat SSH, 11219 SYN, 34277 UDP,
// 10335 TCP) and service names from service detection (22964).

export interface PortInfo {
  port: number;
  protocol: 'tcp' | 'udp';
}

/** `Port <n>/<tcp|udp> was found to be open`, or null (e.g. the port-0 summary row). */
export function parsePortScanner(output: string): PortInfo | null {
  const m = /\bport\s+(\d{1,5})\s*\/\s*(tcp|udp)\b/i.exec(output);
  if (!m) return null;
  const port = Number(m[1]);
  if (port <= 0 || port > 65535) return null;
  return { port, protocol: m[2]!.toLowerCase() as 'tcp' | 'udp' };
}

/**
 * 22964: "A web server is running on this port." / "An SSH server is running on this port." /
 * "A SMB server is running on this port through TLS" / "A TLS-wrapped web server is running on this
 * port.". Returns the service's short lowercase name as the scanner names it (a web server is `www`),
 * whether or not TLS wraps it.
 */
export function parseServiceDetection(output: string): string | null {
  const m = /\bAn? (.+?) (?:server|service|daemon)\b[^.\n]*?\bis running on this port/i.exec(output);
  if (!m) return null;
  const name = m[1]!
    .trim()
    .replace(/^(?:tls|ssl)[- ]wrapped\s+/i, '')
    .toLowerCase();
  if (name === 'web') return 'www';
  return name || null;
}
