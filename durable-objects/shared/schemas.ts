// What each Durable Object's code knows of its schema without its SQL text: the table prefix and the
// id of the last migration. The SQL itself is a static asset (schema-assets.ts).

/** An object's schema as its code knows it. */
export interface SchemaRef {
  /** The tables' prefix; migrations are recorded in `<prefix>_migrations`. */
  readonly prefix: string;
  /** The id of the last migration of its list (e.g. durable-objects/inventory/schema.ts). */
  readonly latest: number;
}

/**
 * Every object's schema. Appending a migration to a list means raising its `latest` here, in the
 * same commit: test/durable-objects/schema-assets.test.ts fails, naming the list, until both agree
 * (and an object whose code expects a migration its asset lacks refuses to start, naming it).
 */
export const SCHEMAS = {
  /** durable-objects/inventory/schema.ts */
  inventory: { prefix: 'inv', latest: 8 },
  /** durable-objects/waiting-room/schema.ts */
  waitingRoom: { prefix: 'wr', latest: 13 },
  /** durable-objects/waiting-room/queue-shard-schema.ts */
  queueShard: { prefix: 'qs', latest: 3 },
  /** durable-objects/event-directory-schema.ts */
  directory: { prefix: 'dir', latest: 3 },
  /** durable-objects/account-ledger/schema.ts */
  accountLedger: { prefix: 'led', latest: 1 },
} as const satisfies Record<string, SchemaRef>;
