// A ticket's assets: one row per link with the asset by name and address (linking to its page), why the
// ticket is tied to it, and whether it covers the asset's findings; and what `broad` means for it.
import { call, type ModelRecord, type TicketAssetLink } from '../api.ts';
import { Link } from '../router.tsx';
import { cell, DataTable, Spinner, useLoad } from '../ui.tsx';

/** Rows shown at most; the rest are counted. */
const SHOWN = 25;

/** Why a ticket is tied to an asset, in words. */
export function linkReason(l: TicketAssetLink): string {
  switch (l.reason) {
    case 'associated':
      return `associated with the request (${l.value})`;
    case 'hostname':
      return `names its host name ${l.value}`;
    case 'fqdn':
      return `names its FQDN ${l.value}`;
    case 'ip':
      return `names its IP address ${l.value}`;
    case 'asset-tag':
      return `names its asset tag ${l.value}`;
    default:
      return `${l.reason} ${l.value}`;
  }
}

/** The asset's name and first address ("fin-ws-0131 (10.20.0.13)"), or its id's start when it is gone. */
function assetLabel(a: ModelRecord<'assets'> | null | undefined, id: string): string {
  if (!a) return `asset ${id.slice(0, 8)} (no longer stored)`;
  const ip = a.ipAddresses?.[0];
  const name = a.name ?? ip ?? id.slice(0, 8);
  return ip && ip !== name ? `${name} (${ip})` : name;
}

export function TicketAssetLinks({ ticket }: { ticket: ModelRecord<'tickets'> }) {
  const links = ticket.assetLinks ?? [];
  const shown = links.slice(0, SHOWN);
  const assets = useLoad(
    (s) => Promise.all(shown.map((l) => call('GET /api/v1/:model/:id', { params: { model: 'assets', id: l.assetId } }, s).catch(() => null))),
    `ticket-assets:${shown.map((l) => l.assetId).join(',')}`,
  );
  const broad = ticket.broad === true && (
    <p className="help" role="note">
      This ticket is <strong>broad</strong>: it names more than 25 hosts, addresses, CVEs or plugins, so it is linked only to the assets associated with the
      request, and the hosts it names do not tie it to theirs.
    </p>
  );
  if (links.length === 0)
    return (
      <>
        {broad}
        <p className="muted">No linked assets.</p>
      </>
    );
  if (!assets.data) return <Spinner />;
  return (
    <>
      {broad}
      <DataTable
        caption="Linked assets"
        rows={shown.map((l, i) => ({ ...l, asset: assets.data?.[i] }))}
        rowKey={(l) => l.assetId}
        columns={[
          {
            key: 'asset',
            label: 'Asset',
            render: (l) => <Link href={`/inventory/assets/${encodeURIComponent(l.assetId)}`}>{assetLabel(l.asset, l.assetId)}</Link>,
          },
          { key: 'why', label: 'Why', render: (l) => linkReason(l) },
          { key: 'covers', label: 'Covers its findings', render: (l) => (l.covers ? 'Yes: every finding on it' : cell('Only the findings listed below')) },
        ]}
      />
      {links.length > shown.length && <p className="muted small">and {links.length - shown.length} more.</p>}
    </>
  );
}
