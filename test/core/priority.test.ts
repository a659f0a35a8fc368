// The SSVC decision, the CVSS rules and the priority (docs/priority.md), on cases worked by hand from
// CISA's SSVC guide and its coordinator table (SSVC 2.0.3), and from the simulator's plugin vectors.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { InputError } from '../../src/core/errors.ts';
import {
  automatableOf,
  explainPriority,
  type PriorityFacts,
  parseCvssVector,
  parsePriorityConfig,
  priorityOf,
  ssvcDecision,
  technicalImpactOf,
} from '../../src/core/priority.ts';

test('the CISA decision: hand-worked leaves of the tree', () => {
  const d = (exploitation: 'none' | 'poc' | 'active', automatable: boolean, technicalImpact: 'partial' | 'total', mission: 'low' | 'medium' | 'high') =>
    ssvcDecision({ exploitation, automatable, technicalImpact, mission });
  // Nothing known of exploitation: Track unless the mission is high and the flaw is total or automatable.
  assert.equal(d('none', false, 'partial', 'high'), 'track');
  assert.equal(d('none', false, 'total', 'high'), 'track-star');
  assert.equal(d('none', true, 'partial', 'high'), 'attend');
  assert.equal(d('none', true, 'total', 'medium'), 'track');
  // A public proof of concept: the guide's worked example (PoC, automatable, partial, medium) is Track.
  assert.equal(d('poc', true, 'partial', 'medium'), 'track');
  assert.equal(d('poc', false, 'partial', 'high'), 'track-star');
  assert.equal(d('poc', false, 'total', 'medium'), 'track-star');
  assert.equal(d('poc', true, 'total', 'high'), 'attend');
  // Active exploitation: Act needs a high mission, or automatable with total impact and a medium one.
  assert.equal(d('active', false, 'total', 'high'), 'act');
  assert.equal(d('active', true, 'partial', 'high'), 'act');
  assert.equal(d('active', true, 'total', 'medium'), 'act');
  assert.equal(d('active', false, 'total', 'medium'), 'attend');
  assert.equal(d('active', true, 'partial', 'low'), 'attend');
  assert.equal(d('active', false, 'partial', 'medium'), 'track');
  assert.equal(d('active', false, 'total', 'low'), 'track');
});

test('automatable and technical impact from CVSS v3 and v2 vectors', () => {
  // The simulator's vectors (Tenable.sc sends them without the CVSS:3.x prefix).
  const critical = parseCvssVector('AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H/E:F/RL:O/RC:C');
  assert.equal(automatableOf(critical), true);
  assert.equal(technicalImpactOf(critical, 'critical'), 'total');
  const medium = parseCvssVector('AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:L/A:H/E:U/RL:O/RC:C');
  assert.equal(automatableOf(medium), false, 'privileges required: not automatable');
  assert.equal(technicalImpactOf(medium, 'medium'), 'partial', 'C:H/I:L with privileges: partial');
  const local = parseCvssVector('CVSS:3.1/AV:L/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H');
  assert.equal(automatableOf(local), false, 'local access: not automatable');
  assert.equal(technicalImpactOf(local, 'high'), 'total');
  assert.equal(technicalImpactOf(parseCvssVector('CVSS:3.1/AV:N/AC:L/PR:N/UI:N/S:U/C:L/I:H/A:N'), 'high'), 'total', 'one high, one low, no privileges');
  assert.equal(automatableOf(parseCvssVector('CVSS:3.1/AV:N/AC:L/PR:N/UI:R/S:U/C:H/I:H/A:H')), false, 'user interaction');
  const v2 = parseCvssVector('AV:N/AC:L/Au:N/C:C/I:C/A:C/E:F/RL:OF/RC:C');
  assert.equal(v2?.version, 2);
  assert.equal(automatableOf(v2), true);
  assert.equal(technicalImpactOf(v2, 'high'), 'total');
  assert.equal(technicalImpactOf(parseCvssVector('AV:N/AC:M/Au:N/C:P/I:P/A:P'), 'high'), 'partial');
  assert.equal(parseCvssVector('not a vector'), null);
  assert.equal(technicalImpactOf(null, 'critical'), 'total', 'without a vector: total for a critical finding');
  assert.equal(technicalImpactOf(null, 'high'), 'partial');
  assert.equal(automatableOf(null), false);
});

const base: PriorityFacts = {
  status: 'open',
  severity: 'critical',
  knownExploited: false,
  epssScore: null,
  exploitAvailable: false,
  cvssV3BaseScore: 9.8,
  cvssV2BaseScore: null,
  cvssV3Vector: 'AV:N/AC:L/PR:N/UI:N/S:U/C:H/I:H/A:H',
  cvssV2Vector: null,
  criticality: 9,
};

test('the priority: a band per decision, ordered within it by the weighted parts', () => {
  const c = parsePriorityConfig(undefined);
  // KEV-listed, automatable, total, criticality 9: Act; parts 3·0.98 + 2·0 + 2·1 + 0 + 1·1 + 2·0.9 = 7.74 of 11.
  const act = priorityOf({ ...base, knownExploited: true }, c);
  assert.deepEqual(act, { decision: 'act', priority: Math.round((75 + (25 * 7.74) / 11) * 10) / 10 });
  assert.equal(act.priority, 92.6);
  // No exploitation known, automatable, total, high mission: Attend (50–75).
  const attend = priorityOf(base, c);
  assert.equal(attend.decision, 'attend');
  assert.equal(attend.priority, Math.round((50 + (25 * 5.74) / 11) * 10) / 10);
  // An EPSS at the threshold is a proof of concept; below it, none.
  assert.equal(priorityOf({ ...base, epssScore: 0.1, criticality: 5 }, c).decision, 'track-star');
  assert.equal(priorityOf({ ...base, epssScore: 0.09, criticality: 5 }, c).decision, 'track');
  assert.equal(priorityOf({ ...base, exploitAvailable: true, criticality: 5 }, c).decision, 'track-star');
  // Unknown criticality: the configured mission level (medium by default).
  assert.equal(priorityOf({ ...base, knownExploited: true, criticality: null }, c).decision, 'act');
  assert.equal(priorityOf({ ...base, knownExploited: true, criticality: null }, parsePriorityConfig('{"missionUnknown":"low"}')).decision, 'attend');
  // Within a decision, a higher EPSS ranks first; every priority lies in its band.
  const lo = priorityOf({ ...base, knownExploited: true, epssScore: 0.1 }, c).priority!;
  const hi = priorityOf({ ...base, knownExploited: true, epssScore: 0.9 }, c).priority!;
  assert.ok(hi > lo && lo >= 75 && hi <= 100);
  // Fixed findings have none.
  assert.deepEqual(priorityOf({ ...base, status: 'fixed' }, c), { decision: null, priority: null });
});

test('the configuration: weights, thresholds and criticality sources; a bad one is refused', () => {
  const c = parsePriorityConfig('{"weights":{"cvss":1,"epss":0,"knownExploited":0,"exploitAvailable":0,"automatable":0,"criticality":0},"missionHigh":9}');
  assert.equal(priorityOf({ ...base, cvssV3BaseScore: 5, knownExploited: true }, c).priority, 87.5, 'only CVSS weighs: 75 + 25 × 0.5');
  assert.equal(
    priorityOf({ ...base, knownExploited: true, criticality: 8 }, c).decision,
    'act',
    'criticality 8 is medium under missionHigh 9, automatable and total',
  );
  assert.equal(priorityOf({ ...base, knownExploited: true, criticality: 8, cvssV3Vector: 'AV:N/AC:L/PR:L/UI:N/S:U/C:H/I:H/A:H' }, c).decision, 'attend');
  assert.deepEqual(parsePriorityConfig('{"businessImpact":{"Mission Critical":10}}').businessImpact, { 'mission critical': 10 });
  for (const bad of ['{', '{"weights":{"cvss":-1}}', '{"unknown":1}', '{"criticalitySources":["vpr"]}', '{"epssPoc":2}'])
    assert.throws(() => parsePriorityConfig(bad), InputError, bad);
});

test('the explanation names the decision and its parts', () => {
  const c = parsePriorityConfig(undefined);
  assert.equal(
    explainPriority({ ...base, knownExploited: true }, c),
    'Act: KEV-listed, network-reachable, automatable, total impact, asset criticality 9/10 (priority 92.6)',
  );
  assert.equal(
    explainPriority({ ...base, epssScore: 0.42, criticality: null, cvssV3Vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N', severity: 'medium' }, c),
    `Track: EPSS 42%, network-reachable, not automatable, partial impact, asset criticality unknown (medium) (priority ${priorityOf({ ...base, epssScore: 0.42, criticality: null, cvssV3Vector: 'AV:N/AC:H/PR:N/UI:N/S:U/C:L/I:L/A:N', severity: 'medium' }, c).priority})`,
  );
  assert.equal(explainPriority({ ...base, status: 'fixed' }, c), null);
});
