// The four ServiceDesk Plus streams, in the order a run reads them.
import type { Stream } from '../../../core/connector.ts';
import { cmdbAssetsStream } from './cmdb-assets.ts';
import type { StreamDeps } from './list-stream.ts';
import { servicesStream } from './services.ts';
import { ticketsStream } from './tickets.ts';
import { usersStream } from './users.ts';

export function sdpStreams(deps: StreamDeps): Stream[] {
  return [ticketsStream(deps), cmdbAssetsStream(deps), usersStream(deps), servicesStream(deps)];
}
