// The alerts repository: rules (URL and secret sealed with the master key), what each rule has reported
// (marks) and compares with next time (state), and the delivery log.
import type { SecretBox } from '../../core/secrets.ts';
import { bindDriver } from '../db/bind.ts';
import type { Driver } from '../db/driver.ts';
import * as deliveries from './deliveries.ts';
import * as incremental from './incremental.ts';
import * as marks from './marks.ts';
import * as rules from './rules.ts';

export function alertsRepository(db: Driver, box: SecretBox) {
  return {
    create: (rule: rules.NewAlertRule) => rules.createRule(db, box, rule),
    /** A rule with its URL and secret opened, for delivery only; null when it was removed. */
    target: (id: string) => rules.ruleTarget(db, box, id),
    ...bindDriver(db, {
      get: rules.getRule,
      list: rules.listRules,
      remove: rules.deleteRule,
      markFindings: marks.markFindings,
      markedFindings: marks.markedFindings,
      markItem: marks.markItem,
      markNewFindings: incremental.markNewFindings,
      readCursor: incremental.readCursor,
      pruneTouched: incremental.pruneTouched,
      purgeRemovedMarks: incremental.purgeRemovedMarks,
      pendingBaselines: marks.pendingBaselines,
      recordBaseline: incremental.recordBaseline,
      getState: marks.getState,
      putState: marks.putState,
      createDelivery: deliveries.createDelivery,
      getDelivery: deliveries.getDelivery,
      deliveryBody: deliveries.deliveryBody,
      deliveries: deliveries.listDeliveries,
      lastDeliveries: deliveries.lastDeliveries,
      recordAttempt: deliveries.recordAttempt,
    }),
  };
}

export type AlertsRepository = ReturnType<typeof alertsRepository>;
