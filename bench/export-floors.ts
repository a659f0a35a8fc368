// The floors of bench/export.ts (see its header): the export's rows read through a bare driver and
// stringified into a file, as the driver's row objects or as arrays. Each runs as a child process of
// its own, timed whole by the bench.
import { once } from 'node:events';
import { createWriteStream } from 'node:fs';

/** The floor's rows per read: the reader's own default page (larger pages cost it less per row, not more memory than the export). */
const FLOOR_PAGE = 1000;
/** The export's SQL on a bare driver: the same columns, joins and WHERE, keyset pages on the id. */
async function floorQuery() {
  const { openDriver, recordColumns, recordFrom, whereClauses } = await import('../src/store/index.ts');
  const where = whereClauses('vulnerabilities', {}, [])!;
  const sql = `SELECT ${recordColumns('vulnerabilities', { exceptions: false })} FROM ${recordFrom('vulnerabilities')} WHERE ${[...where, 'r."id" > ?'].join(' AND ')} ORDER BY r."id" LIMIT ${FLOOR_PAGE}`;
  return { openDriver, sql };
}

/**
 * The floor: the export's rows read straight through the driver (same SQL, keyset pages) and each row
 * JSON.stringify'd into a file, with nothing of Tributary's export between them; `arrays`: the rows
 * read as arrays of values (as the export reads them) and each array stringified.
 */
export async function floor(db: string, out: string, arrays: boolean): Promise<void> {
  const { openDriver, sql } = await floorQuery();
  const driver = await openDriver(db);
  const file = createWriteStream(out);
  let records = 0;
  try {
    let last = '';
    for (;;) {
      let chunk = '';
      let n = 0;
      if (arrays) {
        const { columns, rows } = await driver.allArrays(sql, [last]);
        if (rows.length === 0) break;
        for (const r of rows) chunk += JSON.stringify(r) + '\n';
        n = rows.length;
        last = String(rows[n - 1]![columns.indexOf('id')]);
      } else {
        const rows = await driver.all(sql, [last]);
        if (rows.length === 0) break;
        for (const r of rows) chunk += JSON.stringify(r) + '\n';
        n = rows.length;
        last = String(rows[n - 1]!.id);
      }
      records += n;
      if (!file.write(Buffer.from(chunk, 'utf8'))) await once(file, 'drain');
      if (n < FLOOR_PAGE) break;
    }
    file.end();
    await once(file, 'finish');
  } finally {
    await driver.close();
  }
  process.stdout.write(`${JSON.stringify({ records })}\n`);
}
