// `npm run verify-draw -- <draw page URL or JSON file>` (runs on the project's Node, 22+): recomputes a lottery from its published
// record and checks it. The record is GET /_wr/events/{eventId}/draw after the sale start.
import { readFileSync } from 'node:fs';
import { verifyDraw, type DrawRecord } from '../contracts/queue/queue-policy.ts';

{
  const source = process.argv[2];
  if (!source) {
    console.error('usage: npm run verify-draw -- <http(s)://host/_wr/events/<eventId>/draw | draw.json>');
    process.exit(2);
  }
  // The draw page's own address works too: its record is the same URL as JSON.
  const url = source.startsWith('http') ? new URL(source) : null;
  if (url) url.search = '?format=json';
  const record = (
    url ? await (await fetch(url, { headers: { accept: 'application/json' } })).json() : JSON.parse(readFileSync(source, 'utf8'))
  ) as DrawRecord;
  const problems = await verifyDraw(record);
  if (problems.length === 0)
    console.log(
      `OK: ${record.entrants!.length} entrants, order recomputed from the seed, seed matches the commitment ${record.commitment}`,
    );
  else for (const p of problems) console.log(`MISMATCH: ${p}`);
  process.exit(problems.length === 0 ? 0 : 1);
}
