// Types of bin/compile-cache.js (plain JavaScript: it runs before any TypeScript is loaded).
export function compileCacheDir(): string;
export function enableCompileCache(): void;
