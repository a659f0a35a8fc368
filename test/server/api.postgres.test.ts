// The API suite against a fresh PostgreSQL database (skipped when PostgreSQL is unreachable).
import { describe, it } from 'node:test';
import { apiSuite } from './api-suite.ts';
import { freshPgDatabase } from './helpers.ts';

const probe = await freshPgDatabase();
if (probe) {
  await probe.drop();
  apiSuite('postgres', freshPgDatabase);
} else {
  describe('HTTP API (postgres)', () => {
    it('needs PostgreSQL on 127.0.0.1:5432 (TRIBUTARY_TEST_PG_URL)', { skip: 'PostgreSQL unreachable' }, () => {});
  });
}
