// A ticket names a plugin id by "plugin …" for every upstream, and by the words a connector declares
// (Connector.references) once the connector is registered: correlation itself names no vendor.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConnectorRegistry } from '../../src/connectors/registry.ts';
import { tenableScConnector } from '../../src/connectors/tenable-sc/index.ts';
import { pluginIdWords, registerPluginIdWords } from '../../src/core/references.ts';
import { mentionsOf } from '../../src/correlate/tickets.ts';

test('plugin ids: generic words always, a connector’s own words once it is registered', () => {
  const text = 'Nessus 19506 failed; see Tenable ID: 156032 and plugin #10180';
  assert.deepEqual(mentionsOf(text, null).plugins, ['10180']);
  new ConnectorRegistry([tenableScConnector]);
  assert.deepEqual(pluginIdWords(), ['plugin', 'nessus', 'tenable']);
  assert.deepEqual(mentionsOf(text, null).plugins, ['19506', '156032', '10180']);
  // Words are matched as words, in any case.
  assert.deepEqual(mentionsOf('NESSUS PLUGIN ID 22869', '<p>unnessus 12345</p>').plugins, ['22869']);
});

test('a declared word that is no plain word is refused', () => {
  assert.throws(() => registerPluginIdWords(['(a|b)']), /must be letters/);
});
