// Every region of interfaces.md picks the accounts server and API host of the fact sheet's
// data-centre table (servicedesk-plus.md §1.1); overrides win; the portal lands in the API path.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { accountsUrlOf, apiBaseOf, REGION_KEYS, regionOfApiDomain, sdpConfigSchema } from '../../../src/connectors/servicedesk-plus/config.ts';

// Written from the fact sheet's table, not from the code under test.
const FACT_SHEET: Record<string, { accounts: string; api: string; apiDomain: string }> = {
  us: { accounts: 'https://accounts.zoho.com', api: 'https://sdpondemand.manageengine.com', apiDomain: 'https://www.zohoapis.com' },
  eu: { accounts: 'https://accounts.zoho.eu', api: 'https://sdpondemand.manageengine.eu', apiDomain: 'https://www.zohoapis.eu' },
  in: { accounts: 'https://accounts.zoho.in', api: 'https://sdpondemand.manageengine.in', apiDomain: 'https://www.zohoapis.in' },
  cn: { accounts: 'https://accounts.zoho.com.cn', api: 'https://servicedeskplus.cn', apiDomain: 'https://www.zohoapis.com.cn' },
  au: { accounts: 'https://accounts.zoho.com.au', api: 'https://servicedeskplus.net.au', apiDomain: 'https://www.zohoapis.com.au' },
  jp: { accounts: 'https://accounts.zoho.jp', api: 'https://servicedeskplus.jp', apiDomain: 'https://www.zohoapis.jp' },
  ca: { accounts: 'https://accounts.zohocloud.ca', api: 'https://servicedeskplus.ca', apiDomain: 'https://www.zohoapis.ca' },
  uk: { accounts: 'https://accounts.zoho.uk', api: 'https://servicedeskplus.uk', apiDomain: 'https://www.zohoapis.uk' },
  sa: { accounts: 'https://accounts.zoho.sa', api: 'https://servicedeskplus.sa', apiDomain: 'https://www.zohoapis.sa' },
};

const cloud = (extra: Record<string, unknown>) => sdpConfigSchema.parse({ clientId: '1000.ABC', clientSecret: 'secret-xyz', portal: 'itdesk', ...extra });

test('the nine regions of interfaces.md, and only those', () => {
  assert.deepEqual([...REGION_KEYS].sort(), Object.keys(FACT_SHEET).sort());
  assert.throws(() => cloud({ region: 'mars' }));
});

for (const [region, want] of Object.entries(FACT_SHEET)) {
  test(`region ${region}: accounts ${want.accounts}, API ${want.api}`, () => {
    const c = cloud({ region });
    assert.equal(accountsUrlOf(c).replace(/\/$/, ''), want.accounts);
    assert.equal(apiBaseOf(c), `${want.api}/app/itdesk/api/v3`);
    assert.equal(regionOfApiDomain(want.apiDomain), region, 'a token issued there is recognised as that region');
  });
}

test('accountsUrl and serverUrl override the region; the default region is us', () => {
  const c = cloud({ accountsUrl: 'https://accounts.example.test', serverUrl: 'https://helpdesk.example.test/' });
  assert.equal(accountsUrlOf(c).replace(/\/$/, ''), 'https://accounts.example.test');
  assert.equal(apiBaseOf(c), 'https://helpdesk.example.test/app/itdesk/api/v3');
  assert.equal(accountsUrlOf(cloud({})).replace(/\/$/, ''), FACT_SHEET.us.accounts);
});
