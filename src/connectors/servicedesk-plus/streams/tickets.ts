// The tickets stream: the requests list (every request, not the technician's default view), with the
// fields the ticket mapper reads.
import type { Stream } from '../../../core/connector.ts';
import { mapRequest, TICKET_FIELDS } from '../map/tickets.ts';
import { makeStream, type StreamDeps } from './list-stream.ts';

export function ticketsStream(deps: StreamDeps): Stream {
  return makeStream('tickets', deps, async () => [
    {
      id: 'requests',
      path: 'requests',
      key: 'requests',
      incremental: true,
      fullSort: 'created_time',
      fieldsRequired: [...TICKET_FIELDS],
      filterBy: 'All_Requests',
      map: mapRequest,
    },
  ]);
}
