// `tributary` with the test-only third connector registered (one line), run as a separate process.
import { registerConnector } from '../../src/connectors/registry.ts';
import { thirdConnector } from './third-connector.ts';

registerConnector(thirdConnector);
await import('../../src/cli/main.ts');
