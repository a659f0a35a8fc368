// Compliance (audit) checks: one plugin per check, IDs >= 1000000, pluginType "compliance".
// The wording of the checks is our own; the <cm:…> tag vocabulary follows fact sheet §8.1.
import { FAMILIES, type PluginDef, registerPlugin } from './catalog.ts';

export interface ComplianceCheck {
  plugin: PluginDef;
  auditFile: string;
  benchmark: string;
  checkName: string;
  policyValue: string;
  passingValue: string;
  failingValue: string;
  reference: string;
  /** Defined twice in the audit, so results arrive merged: two result and actual-value tags. */
  duplicated: boolean;
}

export const COMPLIANCE_RESULTS = ['PASSED', 'FAILED', 'WARNING', 'ERROR'] as const;
export type ComplianceResult = (typeof COMPLIANCE_RESULTS)[number];
/** Severity recorded for each result (ERROR was never observed on a real console; Low is our choice). */
export const RESULT_SEVERITY: Record<ComplianceResult, number> = { PASSED: 0, FAILED: 3, WARNING: 2, ERROR: 1 };

type CheckRow = [name: string, policy: string, passing: string, failing: string, reference: string];

const WINDOWS_CHECKS: CheckRow[] = [
  ['1.1.1 Password history keeps at least 24 entries', '24', '24', '5', '800-53|IA-5(1),CSCv8|5.2'],
  ['1.1.2 Maximum password age is 365 days or fewer', '[1..365]', '90', '0', '800-53|IA-5(1)'],
  ['1.1.4 Minimum password length is 14 characters or more', '[14..MAX]', '14', '8', '800-53|IA-5(1),PCI-DSSv4.0|8.3.6'],
  ['1.2.1 Account lockout duration is 15 minutes or more', '[15..MAX]', '30', '5', '800-53|AC-7'],
  ['2.3.1.1 Built-in Guest account is disabled', 'Disabled', 'Disabled', 'Enabled', '800-53|AC-2'],
  ['2.3.7.1 Interactive logon requires CTRL+ALT+DEL', '0', '0', '1', '800-53|AC-8'],
  ['9.1.1 Domain firewall profile is turned on', '1', '1', '0', '800-53|SC-7'],
  ['17.1.1 Credential validation auditing covers success and failure', 'Success and Failure', 'Success and Failure', 'No Auditing', '800-53|AU-2'],
  ['18.3.1 SMB v1 client driver is disabled', '4', '4', '2', '800-53|CM-7'],
  ['18.9.1 Remote Desktop requires network level authentication', '1', '1', '0', '800-53|AC-17'],
  ['19.1.3 Screen saver is password protected', '1', '1', '0', '800-53|AC-11'],
];
const LINUX_CHECKS: CheckRow[] = [
  ['1.1.1.1 Mounting of cramfs filesystems is disabled', 'install /bin/true', 'install /bin/true', '', '800-53|CM-7'],
  ['1.4.1 Bootloader password is set', 'set superusers', 'set superusers="root"', '', '800-53|AC-3'],
  [
    '1.5.3 Address space layout randomisation is enabled',
    'kernel.randomize_va_space = 2',
    'kernel.randomize_va_space = 2',
    'kernel.randomize_va_space = 0',
    '800-53|SI-16',
  ],
  ['2.2.2 X Window System is not installed', 'not installed', 'not installed', 'xserver-xorg 2:7.7', '800-53|CM-7'],
  ['3.3.1 Source routed packets are not accepted', '0', '0', '1', '800-53|SC-7'],
  ['4.1.1.1 auditd is installed', 'installed', 'auditd 1:3.0.7', 'not installed', '800-53|AU-12'],
  ['5.2.4 SSH access is limited to named groups', 'AllowGroups', 'AllowGroups sshusers', '', '800-53|AC-3'],
  ['5.2.8 SSH root login is disabled', 'PermitRootLogin no', 'PermitRootLogin no', 'PermitRootLogin yes', '800-53|AC-6(2)'],
  ['5.4.1 Password creation requires 14 or more characters', 'minlen >= 14', 'minlen = 14', 'minlen = 8', '800-53|IA-5(1)'],
  ['6.1.2 Permissions on /etc/passwd are 644', '644', '644', '666', '800-53|AC-3'],
  ['6.2.1 Accounts in /etc/passwd use shadowed passwords', 'all shadowed', 'all shadowed', 'svc-legacy', '800-53|IA-5'],
];

function register(rows: CheckRow[], firstId: number, auditFile: string, benchmark: string, duplicatedIndex: number): ComplianceCheck[] {
  return rows.map(([checkName, policyValue, passingValue, failingValue, reference], i) => {
    const plugin = registerPlugin({
      id: firstId + i,
      name: `${benchmark}: ${checkName}`,
      family: FAMILIES.compliance,
      role: 'compliance',
      textKind: 'compliance',
      checkType: 'local',
      synopsis: checkName,
      description: `Audit check "${checkName}" from ${benchmark}.`,
      solution: 'Bring the setting in line with the policy value.',
      severity: 0,
    });
    return { plugin, auditFile, benchmark, checkName, policyValue, passingValue, failingValue, reference, duplicated: i === duplicatedIndex };
  });
}

export const WINDOWS_COMPLIANCE = register(
  WINDOWS_CHECKS,
  1000100,
  'CIS_Microsoft_Windows_Server_2022_v2.0.0_L1_MS.audit',
  'CIS Microsoft Windows Server 2022 L1 Member Server v2.0.0',
  3,
);
export const LINUX_COMPLIANCE = register(LINUX_CHECKS, 1000200, 'CIS_Linux_Server_L1_v1.0.0.audit', 'CIS Linux Server L1 v1.0.0', 6);
