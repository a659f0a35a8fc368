// Runs a test's child script to its end (or its SIGKILL), asynchronously: a simulator the child talks to
// may be answering from the parent's event loop.
import { spawn } from 'node:child_process';

export interface ChildEnd {
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/** Spawns `node script ...args`; a child still running after `timeoutMs` is stopped with SIGTERM. */
export function runChild(script: string, args: string[], timeoutMs: number): Promise<ChildEnd> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [script, ...args]);
    let stdout = '';
    let stderr = '';
    p.stdout.on('data', (d) => {
      stdout += d;
    });
    p.stderr.on('data', (d) => {
      stderr += d;
    });
    const timer = setTimeout(() => p.kill('SIGTERM'), timeoutMs);
    p.on('close', (_code, signal) => {
      clearTimeout(timer);
      resolve({ signal, stdout, stderr });
    });
  });
}
