// Gateway Worker entry: the Hono app, and the Durable Object classes wrangler must find here.
import { createApp } from './app';

export { AccountLedger } from '../durable-objects/account-ledger/account-ledger';
export { EventDirectory } from '../durable-objects/event-directory';
export { Inventory } from '../durable-objects/inventory/inventory';
export { QueueShard } from '../durable-objects/waiting-room/queue-shard';
export { WaitingRoom } from '../durable-objects/waiting-room/waiting-room';

const app = createApp();

export default {
  fetch: app.fetch,
} satisfies ExportedHandler<Env>;
