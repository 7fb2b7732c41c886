// `npm run verify-draw -- <draw URL or JSON file>`: recomputes a lottery from its published
// record and checks it. The record is GET /_wr/events/{eventId}/draw after the sale start.
import { readFileSync } from 'node:fs';
import { verifyDraw, type DrawRecord } from '../contracts/queue/queue-policy.ts';

{
  const source = process.argv[2];
  if (!source) {
    console.error('usage: npm run verify-draw -- <http(s)://host/_wr/events/<eventId>/draw | draw.json>');
    process.exit(2);
  }
  const record = (source.startsWith('http') ? await (await fetch(source)).json() : JSON.parse(readFileSync(source, 'utf8'))) as DrawRecord;
  const problems = await verifyDraw(record);
  if (problems.length === 0)
    console.log(
      `OK: ${record.entrants!.length} entrants, order recomputed from the seed, seed matches the commitment ${record.commitment}`,
    );
  else for (const p of problems) console.log(`MISMATCH: ${p}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
