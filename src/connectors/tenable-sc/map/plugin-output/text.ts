// Shared helpers for plugin-output parsers: unwrap <plugin_output>, split lines, read "Key : value" lines.
import { unescapeHtml } from '../values.ts';

/** The plugin output without its <plugin_output> wrapper, with \r\n normalised. */
export function pluginOutput(pluginText: unknown): string {
  if (typeof pluginText !== 'string') return '';
  let s = pluginText.replace(/\r\n?/g, '\n');
  const open = s.indexOf('<plugin_output>');
  if (open >= 0) {
    const close = s.lastIndexOf('</plugin_output>');
    s = s.slice(open + '<plugin_output>'.length, close > open ? close : undefined);
  }
  // Some consoles/exports HTML-escape the output; compliance tags are handled separately.
  if (!s.includes('<') && /&(lt|gt|amp|quot);/.test(s)) s = unescapeHtml(s);
  return s.replace(/^\n+/, '').replace(/\s+$/, '');
}

/** Value of the first `<key> : <value>` line (any indentation and padding), or null. */
export function keyValue(output: string, key: string | RegExp): string | null {
  const k = typeof key === 'string' ? key.replace(/[.*+?^${}()|[\]\\]/g, '\\$&') : key.source;
  const m = new RegExp(`^[ \\t-]*${k}[ \\t]*:[ \\t]*(.*)$`, 'im').exec(output);
  if (!m) return null;
  const v = (m[1] ?? '').trim();
  return v === '' ? null : v;
}

export function lines(output: string): string[] {
  return output.split('\n');
}
