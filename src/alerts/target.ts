// Which URLs a webhook may post to. http and https only, no longer than 2048 characters. Private and
// loopback addresses are allowed: the service is self-hosted and its receivers (a chat relay, a SOAR,
// a ticketing bridge) usually sit on the same network. Refused are the ways data enters the service
// itself, wherever they are reached: its upload endpoints (a source's files and upload-token uploads,
// which a sync would import), its feed import, and the S3 endpoint of its file drop (an alert posted
// there would land in a bucket). Redirects are never followed (deliver.ts), so an allowed URL cannot
// be bounced to a refused one.
import { InputError } from '../core/errors.ts';
import { s3OptionsFrom } from '../filedrop/resolve.ts';
import type { AlertContext } from './context.ts';

export const MAX_URL_LENGTH = 2048;

/** Paths through which data enters the service (server/routes/files.ts, feeds.ts). */
const INTAKE_PATHS: { re: RegExp; what: string }[] = [
  { re: /^\/api\/v1\/upload(\/|$)/i, what: "the service's upload endpoint" },
  { re: /^\/api\/v1\/sources\/[^/]+\/(files|file-drop)(\/|$)/i, what: "a source's file upload" },
  { re: /^\/api\/v1\/feeds(\/|$)/i, what: 'the feed import' },
];

function refuse(why: string): never {
  throw new InputError(`webhook URL refused: ${why}`, 'url');
}

/** The S3 endpoint of the file drop (its origin), when the file drop is on S3 with an endpoint of its own. */
function fileDropS3Origin(app: Pick<AlertContext, 'fileDrop' | 'env'>): string | null {
  const env = app.env ?? process.env;
  const drop = (app.fileDrop ?? env.TRIBUTARY_FILE_DROP ?? '').trim();
  if (drop !== 's3' && !drop.startsWith('s3:')) return null;
  try {
    const endpoint = s3OptionsFrom(drop, env).endpoint;
    return endpoint ? new URL(endpoint).origin : null;
  } catch {
    return null;
  }
}

/** The URL as given when it may receive alerts; else an InputError (400, exit 2) saying why. */
export function checkWebhookUrl(app: Pick<AlertContext, 'fileDrop' | 'env'>, raw: string): string {
  const url = raw.trim();
  if (url.length > MAX_URL_LENGTH) refuse(`longer than ${MAX_URL_LENGTH} characters`);
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    refuse('not a URL (http://… or https://…)');
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') refuse(`'${u.protocol}' is not http: or https:`);
  if (!u.hostname) refuse('no host');
  // Decoded, so `%2F`-style spellings of a refused path are refused too.
  let path = u.pathname;
  try {
    path = decodeURIComponent(path);
  } catch {
    refuse('its path is not valid percent-encoding');
  }
  path = path.replace(/\/{2,}/g, '/');
  for (const p of INTAKE_PATHS) if (p.re.test(path)) refuse(`it is ${p.what} of this service (alerts would be imported as data)`);
  const s3 = fileDropS3Origin(app);
  if (s3 && u.origin === s3) refuse('it is the S3 endpoint of the file drop');
  return url;
}
