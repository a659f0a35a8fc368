// The users stream: requesters and technicians (on-prem builds list requesters as `users`, older ones
// as `requesters`).
import type { Stream } from '../../../core/connector.ts';
import { deploymentOf } from '../config.ts';
import type { Json } from '../map/envelope.ts';
import { mapUser } from '../map/users.ts';
import { makeStream, type StreamDeps } from './list-stream.ts';

export function usersStream(deps: StreamDeps): Stream {
  const onprem = deploymentOf(deps.config) === 'onprem';
  return makeStream('users', deps, async () => [
    onprem
      ? { id: 'users', path: 'users', altPaths: ['requesters'], incremental: true, fullSort: 'created_time', map: (row: Json) => mapUser(row) }
      : { id: 'requesters', path: 'requesters', key: 'requesters', incremental: true, fullSort: 'created_time', map: (row: Json) => mapUser(row, false) },
    { id: 'technicians', path: 'technicians', key: 'technicians', incremental: true, fullSort: 'created_time', map: (row: Json) => mapUser(row, true) },
  ]);
}
