// Types of bin/launch.js (plain JavaScript: it runs before any TypeScript is loaded).
export function launchSettings(): { env: Record<string, string>; flags: string[] };
export function compileCacheDir(): string;
export function enableCompileCache(): void;
