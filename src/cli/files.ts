// `tributary upload SOURCE FILE…` and `tributary sources file-drop NAME`
import type { Command } from 'commander';
import { runningServerAddress } from '../app/server-address.ts';
import { fileDropGuide } from '../filedrop/guide.ts';
import { uploadFiles } from '../filedrop/upload.ts';
import { printJson, withApp } from './app.ts';

function human(bytes: number): string {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(1)} GiB`;
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`;
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`;
  return `${bytes} B`;
}

export function registerUploadCommand(program: Command): void {
  program
    .command('upload <source> <files...>')
    .description("put files into the source's bucket; its next sync imports them")
    .action(async (source: string, files: string[], _o, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const tty = process.stderr.isTTY && !g.json;
        let lastDraw = 0;
        const uploaded = await uploadFiles(app, source, files, (p) => {
          const now = Date.now();
          if (!tty || (now - lastDraw < 150 && p.bytes < p.total)) return;
          lastDraw = now;
          const pct = p.total ? Math.floor((100 * p.bytes) / p.total) : 100;
          process.stderr.write(`\r\x1b[2Kuploading ${p.key} (${p.index + 1}/${files.length}): ${pct}% of ${human(p.total)}`);
        });
        if (tty) process.stderr.write('\r\x1b[2K');
        if (g.json) return printJson(uploaded);
        for (const f of uploaded) process.stdout.write(`uploaded ${f.path ?? f.address} (${human(f.size)})\n`);
        process.stdout.write(`the next sync of '${source}' imports ${uploaded.length === 1 ? 'it' : 'them'}: tributary sync ${source}\n`);
      });
    });
}

export function registerFileDropCommand(sources: Command): void {
  sources
    .command('file-drop <name>')
    .description('the file-drop guide: bucket address, upload credentials scoped to it, ready-to-paste commands')
    .option('--file <name>', 'credentials for this one file (a presigned URL on S3)')
    .option('--expires <duration>', 'how long the credentials stay valid (e.g. 30m, 1h, 7d)', '1h')
    .action(async (name: string, o: { file?: string; expires: string }, cmd: Command) => {
      await withApp(cmd, async (app, g) => {
        const baseUrl = process.env.TRIBUTARY_PUBLIC_URL ?? runningServerAddress(app.dataDir) ?? undefined;
        const guide = await fileDropGuide(app, name, { file: o.file ?? null, expires: o.expires, createdBy: 'cli', baseUrl });
        if (g.json) return printJson(guide);
        const out = process.stdout;
        out.write(guide.folder ? `Folder of '${guide.source}': ${guide.folder}\n` : `Bucket of '${guide.source}': ${guide.address}  (${guide.storage})\n`);
        if (guide.sharedWith.length) out.write(`Shared with: ${guide.sharedWith.join(', ')}\n`);
        out.write(`Credentials valid until ${guide.expiresAt}${guide.file ? ` for the file ${guide.file} only` : ''}\n`);
        if (guide.token) out.write(`Upload token (shown once; revoke with the API or web UI): ${guide.token.token}\n`);
        if (guide.presignedUrl) out.write(`Presigned upload URL: ${guide.presignedUrl}\n`);
        out.write('\n');
        for (const c of guide.commands) out.write(`# ${c.label}\n${c.command}\n\n`);
        for (const n of guide.notes) out.write(`Note: ${n}\n`);
      });
    });
}
