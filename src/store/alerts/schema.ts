// The alerts' tables (migration 29). A rule is a webhook with the kinds of event it reports; its URL and
// signing secret are sealed with the master key (a Slack or Teams webhook URL is itself a credential).
// `alert_marks` holds each item a rule has reported (or found already true when it was added): an item
// is reported once per rule and kind. `eval_id` names the evaluation that marked it, so a digest reads
// the items one evaluation found without holding them in memory. `alert_state` keeps what a rule
// compares with at its next evaluation (the coverage counts). `alert_deliveries` is the delivery log.
export const ALERTS_MIGRATION = `
CREATE TABLE alert_rules (
  id TEXT PRIMARY KEY,
  name TEXT NOT NULL UNIQUE,
  kinds TEXT NOT NULL,
  format TEXT NOT NULL,
  url TEXT NOT NULL,
  url_shown TEXT NOT NULL,
  secret TEXT NOT NULL,
  max_items INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  created_by TEXT
);
CREATE TABLE alert_marks (
  rule_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  item_id TEXT NOT NULL,
  eval_id TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (rule_id, kind, item_id)
);
CREATE INDEX alert_marks_eval ON alert_marks (eval_id, rule_id, kind);
CREATE TABLE alert_state (
  rule_id TEXT NOT NULL,
  kind TEXT NOT NULL,
  state TEXT NOT NULL,
  at TEXT NOT NULL,
  PRIMARY KEY (rule_id, kind)
);
CREATE TABLE alert_deliveries (
  id TEXT PRIMARY KEY,
  rule_id TEXT NOT NULL,
  rule_name TEXT NOT NULL,
  kind TEXT NOT NULL,
  cause TEXT NOT NULL,
  run_id TEXT,
  status TEXT NOT NULL,
  attempts INTEGER NOT NULL,
  http_status INTEGER,
  last_error TEXT,
  items INTEGER NOT NULL,
  total INTEGER NOT NULL,
  body TEXT NOT NULL,
  created_at TEXT NOT NULL,
  updated_at TEXT NOT NULL,
  delivered_at TEXT,
  next_attempt_at TEXT
);
CREATE INDEX alert_deliveries_created ON alert_deliveries (created_at, id);
CREATE INDEX alert_deliveries_rule ON alert_deliveries (rule_id, created_at);
`;
