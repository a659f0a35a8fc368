// Module types for what Vite bundles besides TypeScript.
declare module '*.css';
