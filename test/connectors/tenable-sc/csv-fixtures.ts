// Rows of a Tenable.sc Vulnerability Detail List export (the 44 columns of a real export) for tests.
import { VULN_DETAIL_COLUMNS } from '../../../sim/tenable-sc/export-columns.ts';

export const SC_HEADER: string[] = [...VULN_DETAIL_COLUMNS];

type Cells = Partial<Record<(typeof SC_HEADER)[number], string>>;

/** One export row: defaults for a medium finding on 10.0.0.1, overridden by `c`. */
export function scRow(c: Cells): string[] {
  const d: Cells = {
    Plugin: '42873',
    'Plugin Name': 'SSL Medium Strength Cipher Suites Supported (SWEET32)',
    Family: 'General',
    Severity: 'Medium',
    'IP Address': '10.0.0.1',
    Protocol: 'TCP',
    Port: '443',
    Repository: 'Corp',
    'MAC Address': '00:50:56:aa:bb:cc',
    'DNS Name': 'web1.corp.example',
    'NetBIOS Name': 'CORP\\WEB1',
    'Plugin Output': 'Plugin Output: \n  Medium Strength Ciphers\n',
    Solution: 'Reconfigure the service.',
    CVE: 'CVE-2016-2183',
    'CVSS V2 Base Score': '5.0',
    'CVSS V3 Base Score': '7.5',
    'Vulnerability Priority Rating': '5.1',
    'First Discovered': 'Feb 9, 2024 10:48:42 UTC',
    'Last Observed': 'Oct 17, 2024 17:24:54 UTC',
    'Patch Publication Date': 'N/A',
  };
  const all = { ...d, ...c };
  return SC_HEADER.map((h) => all[h] ?? '');
}
