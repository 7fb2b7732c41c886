// Event configs for tests that talk to the objects directly (no HTTP). Pure: runs in Node and in workerd.
import { splitConfig, type QueueConfig } from '../../contracts/event-config';
import { eventConfigInput } from '../../contracts/event-input';

/** A queue config for RPC-level tests: 600 a minute fixed, room for 10,000 active, then `overrides` (PUT body fields). */
export function queueConfig(eventId: string, overrides: Record<string, unknown> = {}): QueueConfig {
  const input = eventConfigInput.parse({
    releaseRatePerMinute: 600,
    minReleaseRatePerMinute: 600,
    maxActiveVisitors: 10_000,
    seats: 10,
    ...overrides,
  });
  return splitConfig(eventId, input).queue;
}
