import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapComplianceResult, parseCompliance } from '../../../src/connectors/tenable-sc/map/plugin-output/compliance.ts';
import { parseDmiHardware, parseWindowsHardware } from '../../../src/connectors/tenable-sc/map/plugin-output/hardware.ts';
import {
  parseCredentialedScan,
  parseEthernetManufacturers,
  parseFqdnResolution,
  parseDeviceHostname,
  parseLastLoggedOnUser,
  parseMacAddresses,
  parseOsIdentification,
} from '../../../src/connectors/tenable-sc/map/plugin-output/host-info.ts';
import { parsePortScanner, parseServiceDetection } from '../../../src/connectors/tenable-sc/map/plugin-output/ports.ts';
import { parseUnixSoftware, parseWindowsSoftware, splitRpm } from '../../../src/connectors/tenable-sc/map/plugin-output/software.ts';
import { keyValue, pluginOutput } from '../../../src/connectors/tenable-sc/map/plugin-output/text.ts';
import { fixture } from './fixtures/rows.ts';

test('pluginOutput strips the wrapper and escaped entities', () => {
  assert.equal(pluginOutput('<plugin_output>\nHello\n</plugin_output>'), 'Hello');
  assert.equal(pluginOutput('no wrapper here'), 'no wrapper here');
  assert.equal(pluginOutput('<plugin_output>a &amp; b &lt;c&gt;</plugin_output>'), 'a & b <c>');
  assert.equal(pluginOutput(undefined), '');
  assert.equal(keyValue('  Computer Model   :  X1 \n', 'Computer Model'), 'X1');
});

test('20811 Windows software: name, optional version, stops at the updates section', () => {
  const items = parseWindowsSoftware(pluginOutput(fixture('plugin-20811.txt')));
  assert.deepEqual(items, [
    { name: 'Mozilla Firefox (x64 en-US)', version: '121.0.1' },
    { name: 'Notepad++ (64-bit x64)', version: '8.6' },
    { name: 'Contoso Line-of-Business Agent', version: null },
    { name: '7-Zip 23.01 (x64)', version: '23.01' },
  ]);
});

test('22869 RPM packages: name/version-release split, epoch kept, (none) dropped', () => {
  assert.deepEqual(parseUnixSoftware(pluginOutput(fixture('plugin-22869-rpm.txt'))), [
    { name: 'openssl-libs', version: '1:1.0.2k-26.el7_9' },
    { name: 'bash', version: '4.2.46-35.el7_9' },
    { name: 'tzdata', version: '2024a-1.el7' },
  ]);
  assert.deepEqual(splitRpm('bzip2-libs-1.0.6-13.el7'), { name: 'bzip2-libs', version: '1.0.6-13.el7' });
  assert.deepEqual(splitRpm('weird'), { name: 'weird', version: null });
});

test('22869 dpkg packages: the ii/rc table, arch suffix removed', () => {
  assert.deepEqual(parseUnixSoftware(pluginOutput(fixture('plugin-22869-dpkg.txt'))), [
    { name: 'adduser', version: '3.134' },
    { name: 'libssl3', version: '3.0.11-1~deb12u2' },
    { name: 'oldpkg', version: '0.9-1' },
  ]);
  assert.deepEqual(parseUnixSoftware('There are no packages installed on the remote Solaris 11 system.'), []);
});

test('24270 and 35351 hardware', () => {
  assert.deepEqual(parseWindowsHardware(pluginOutput(fixture('plugin-24270.txt'))), {
    manufacturer: 'Dell Inc.',
    model: 'Latitude 7440',
    serialNumber: '7XK2Q93',
  });
  assert.deepEqual(parseDmiHardware(pluginOutput(fixture('plugin-35351.txt'))), {
    manufacturer: 'HPE',
    model: 'ProLiant DL360 Gen10',
    serialNumber: 'CZJ8370ABC',
  });
  assert.deepEqual(parseWindowsHardware('  Computer Manufacturer : To Be Filled By O.E.M.\n  Computer Model : Z\n'), { model: 'Z' });
});

test('host facts: OS, last user, MACs, hostname, credentialed scan', () => {
  assert.equal(parseOsIdentification(pluginOutput(fixture('plugin-11936.txt'))), 'Microsoft Windows Server 2019 Standard Build 17763');
  assert.equal(parseLastLoggedOnUser(pluginOutput(fixture('plugin-38689.txt'))), 'CORP\\jdoe');
  assert.deepEqual(parseMacAddresses(pluginOutput(fixture('plugin-86420.txt'))), ['00:50:56:a1:b2:c3', '00:50:56:a1:b2:c4']);
  assert.equal(parseDeviceHostname('Hostname : APP01\n  APP01 (WMI)'), 'APP01');
  assert.equal(parseCredentialedScan(pluginOutput(fixture('plugin-19506.txt'))), true);
  assert.equal(parseCredentialedScan('Credentialed checks : no'), false);
  assert.equal(parseCredentialedScan('Scanner IP : 1.2.3.4'), null);
  assert.equal(parseFqdnResolution(pluginOutput(fixture('plugin-12053.txt'))), 'web01.corp.example');
  assert.equal(parseFqdnResolution('192.168.0.9 resolves as DB02.Example.COM'), 'db02.example.com');
  assert.equal(parseFqdnResolution('Nothing resolves here.'), null);
  assert.deepEqual(parseEthernetManufacturers(pluginOutput(fixture('plugin-35716.txt'))), ['00:50:56:a1:b2:c3', '00:50:56:a1:b2:c4']);
});

test('port scanners and service detection', () => {
  assert.deepEqual(parsePortScanner(pluginOutput(fixture('plugin-34220.txt'))), { port: 3389, protocol: 'tcp' });
  assert.deepEqual(parsePortScanner('Port 161/udp was found to be open'), { port: 161, protocol: 'udp' });
  assert.equal(parsePortScanner('Nessus was able to find 14 open ports.'), null);
  assert.equal(parseServiceDetection('An SSH server is running on this port.'), 'ssh');
  assert.equal(parseServiceDetection('A web server is running on this port through TLS.'), 'www');
  // The simulator's wording (and Nessus's for HTTPS): the service, not the wrapping.
  assert.equal(parseServiceDetection('A TLS-wrapped web server is running on this port.'), 'www');
  assert.equal(parseServiceDetection('An SSL-wrapped FTP server is running on this port.'), 'ftp');
  assert.equal(parseServiceDetection('nothing here'), null);
});

test('compliance tags: a control reported twice yields the worst result', () => {
  const c = parseCompliance(fixture('compliance-twice.txt'));
  assert.ok(c);
  assert.equal(c.checkName, "1.1.1 Ensure 'Enforce password history' is set to '24 or more password(s)'");
  assert.equal(c.auditFile, 'CIS_MS_Windows_Server_2019_Level_1_v2.0.0.audit');
  assert.equal(c.checkId, '6f1c2e1b8d9a4c3e');
  assert.deepEqual(c.results, ['passed', 'failed']);
  assert.equal(c.result, 'failed');
  assert.equal(c.actualValue, '24');
  assert.equal(c.policyValue, '[24..MAX]');
  assert.equal(c.reference, '800-53|IA-5(1),CIS|1.1.1');
  assert.equal(parseCompliance('<plugin_output>no tags</plugin_output>'), null);
  assert.equal(mapComplianceResult('WARNING'), 'warning');
  assert.equal(mapComplianceResult('ERROR'), 'error');
  assert.equal(mapComplianceResult('SKIPPED'), null);
  const escaped = parseCompliance('<cm:compliance-check-name>a &lt; b</cm:compliance-check-name><cm:compliance-result>WARNING</cm:compliance-result>');
  assert.equal(escaped?.checkName, 'a < b');
  assert.equal(escaped?.result, 'warning');
});
