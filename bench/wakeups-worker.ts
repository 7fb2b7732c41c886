// Build for `bench/wakeups.ts`: the gateway with a WaitingRoom that counts the alarms it runs
// (each one an object wake-up the platform bills), read back by one extra route. Never deployed.
import gateway, { WaitingRoom } from '../src/index';

export { EventDirectory, Inventory, QueueShard } from '../src/index';

/**
 * The WaitingRoom, counting its alarm runs in its own storage (an idle object is evicted and
 * restarted, so an in-memory count would restart too).
 */
export class CountingRoom extends WaitingRoom {
  override async alarm(): Promise<void> {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS bench_alarms (n INTEGER NOT NULL)');
    this.ctx.storage.sql.exec('INSERT INTO bench_alarms VALUES (1)');
    return super.alarm();
  }

  /** Alarm runs since the room was created. */
  async alarmCount(): Promise<number> {
    this.ctx.storage.sql.exec('CREATE TABLE IF NOT EXISTS bench_alarms (n INTEGER NOT NULL)');
    return this.ctx.storage.sql.exec<{ n: number }>('SELECT COUNT(*) AS n FROM bench_alarms').one().n;
  }
}

type WakeEnv = Omit<Env, 'WAITING_ROOM'> & { WAITING_ROOM: DurableObjectNamespace<CountingRoom> };

export default {
  async fetch(request: Request, env: WakeEnv, ctx: ExecutionContext): Promise<Response> {
    const url = new URL(request.url);
    if (url.pathname === '/__bench/alarms') {
      return Response.json(await env.WAITING_ROOM.getByName(url.searchParams.get('event') ?? '').alarmCount());
    }
    return gateway.fetch(request, env as unknown as Env, ctx);
  },
};
