// Where the built web UI is: `<install>/dist/web`, or TRIBUTARY_WEB_DIR. The server serves it without
// authentication, so exports are never written there (export/confine.ts); spelled once here, below both.
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The install's own build of src/web (scripts/build-web.sh). */
export const DEFAULT_WEB_DIR = resolve(fileURLToPath(new URL('../../dist/web', import.meta.url)));

/** The folder the server serves at `/`: TRIBUTARY_WEB_DIR when set, else DEFAULT_WEB_DIR. */
export function webDirOf(env: NodeJS.ProcessEnv): string {
  return resolve(env.TRIBUTARY_WEB_DIR || DEFAULT_WEB_DIR);
}
