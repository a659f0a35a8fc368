// The API suite against SQLite in a temporary data dir.
import { apiSuite } from './api-suite.ts';

apiSuite('sqlite', async () => null);
