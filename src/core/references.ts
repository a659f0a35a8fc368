// How a ticket's text names an upstream's plugin (check) id: "plugin 156032", "plugin id: 156032", and
// the words connectors declare for their own upstream (Connector.references). The connector registry
// registers them (as it registers secret field names), so correlation knows them without naming a vendor.

/** Words any upstream's plugin ids follow. */
const GENERIC_WORDS = ['plugin'];
const words = new Set<string>(GENERIC_WORDS);
let pattern: RegExp | null = null;

/** Adds words that, before a number, name a plugin id (a connector's `references.pluginIdWords`). */
export function registerPluginIdWords(list: Iterable<string>): void {
  for (const w of list) {
    const word = w.trim().toLowerCase();
    if (!/^[a-z][a-z0-9 .-]*$/.test(word)) throw new Error(`plugin id word '${w}' must be letters, digits, spaces, dots or hyphens`);
    if (!words.has(word)) {
      words.add(word);
      pattern = null;
    }
  }
}

/** The words registered so far (the generic ones first). */
export function pluginIdWords(): string[] {
  return [...words];
}

/** `<word> [id] [:#] <4–6 digits>`, any case and global (use with matchAll, which copies it); group 1 is the id. */
export function pluginIdPattern(): RegExp {
  if (!pattern) {
    const alt = [...words].map((w) => w.replace(/[.]/g, '\\.').replace(/ /g, '\\s+')).join('|');
    pattern = new RegExp(`\\b(?:${alt})(?:\\s*id)?\\s*[:#]?\\s*(\\d{4,6})\\b`, 'gi');
  }
  return pattern;
}
