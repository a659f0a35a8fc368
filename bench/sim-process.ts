// A Tenable.sc simulator in its own process (`tributary sim tenable-sc …`), so its work is not counted
// in the benchmark's: ready once it prints its address and API keys as the first line.
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/tributary.js', import.meta.url));

export interface SimProcess {
  url: string;
  accessKey: string;
  secretKey: string;
  child: ChildProcess;
}

/** Starts `tributary sim tenable-sc` on a free port with the given options (hosts, seed, latency …). */
export function startTenableSimProcess(options: string[]): Promise<SimProcess> {
  const child = spawn(process.execPath, [BIN, 'sim', 'tenable-sc', '--port', '0', ...options], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        const { url, accessKey, secretKey } = JSON.parse(out.slice(0, nl)) as { url: string; accessKey: string; secretKey: string };
        resolve({ url, accessKey, secretKey, child });
      }
    });
    child.once('exit', (c) => reject(new Error(`the simulator exited (${c})`)));
  });
}
