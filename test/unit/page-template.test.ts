// An organizer's waiting page template (`page.template`): the rules the organizer API checks
// before storing one (each problem named by rule, line and column) and the page rendered from it.
import fc from 'fast-check';
import EXAMPLE from '../../docs/how-to/custom-waiting-page.html?raw';
import GUIDE from '../../docs/how-to/custom-waiting-page.md?raw';
import { describe, expect, it } from 'vitest';
import { pageTemplateInput } from '../../contracts/event-input';
import {
  MAX_REPEATS,
  MAX_TEMPLATE_BYTES,
  PLACEHOLDERS,
  RESERVED_IDS,
  templateProblem,
  type PlaceholderName,
} from '../../contracts/page-template';
import { MESSAGES } from '../../src/pages/waiting-messages';
import { templatePage } from '../../src/pages/template-page';
import type { StatusBody } from '../../src/lib/status-body';

const NAMES: readonly PlaceholderName[] = PLACEHOLDERS;
const MINIMAL = '<main><h1>{{headline}}</h1><p>{{position}}</p></main>';

const where = (template: string) => {
  const p = templateProblem(template);
  return p && `${p.rule} ${p.line}:${p.column}`;
};

describe('page template rules', () => {
  it('lists every placeholder in the how-to guide’s table, and no other', () => {
    const listed = [...GUIDE.matchAll(/^\| `\{\{(\w+)\}\}`/gm)].map((m) => m[1]);
    expect([...listed].sort()).toEqual([...NAMES].sort());
  });

  it('accepts the example of the how-to guide, which uses every placeholder', () => {
    expect(templateProblem(EXAMPLE)).toBeNull();
    for (const name of NAMES) expect(EXAMPLE, name).toContain(`{{${name}}}`);
  });

  const refused: [string, string, string][] = [
    ['an unknown placeholder', '<h1>{{headline}}</h1>\n<p>{{posiiton}}</p>{{position}}', 'unknown-placeholder 2:4'],
    ['a placeholder not closed on its line', '{{headline}}{{position}}\n<p>{{ wait\n}}</p>', 'unclosed-placeholder 2:4'],
    ['a placeholder used twice', '{{headline}} {{position}}\n\n  {{ position }}', 'duplicate-placeholder 3:3'],
    ['a required placeholder missing (named at the end)', '<h1>{{headline}}</h1>\n<p>{{wait}}</p>\n', 'missing-placeholder 3:1'],
    ['a <script> element', `${MINIMAL}\n<div>\n  <SCRIPT src="https://x.test/a.js"></script>`, 'no-script 3:3'],
    ['an inline event handler', `${MINIMAL}\n<img src="https://x.test/a.png" alt="" onerror="go()">`, 'no-event-handler 2:40'],
    ['a javascript: URL', `${MINIMAL}\n<a href="javascript:go()">go</a>`, 'no-javascript-url 2:4'],
    [
      'a javascript: URL behind spaces and character references',
      `${MINIMAL}\n<a href=" &#106;ava\tscript&colon;go()">`,
      'no-javascript-url 2:4',
    ],
    ['the document’s own elements', `<body>${MINIMAL}</body>`, 'not-a-fragment 1:1'],
    ['a doctype', `<!DOCTYPE html>${MINIMAL}`, 'not-a-fragment 1:1'],
    ['an embedded document', `${MINIMAL}<iframe src="https://x.test"></iframe>`, 'forbidden-element 1:54'],
    ['a placeholder inside a tag', '<h1 title="{{position}}">{{headline}}</h1>', 'placeholder-position 1:12'],
    ['a placeholder inside a comment', `${MINIMAL}<!-- {{wait}} -->`, 'placeholder-position 1:59'],
    ['a placeholder inside <style>', `<style>\n  p::after { content: "{{wait}}"; }\n</style>${MINIMAL}`, 'placeholder-position 2:24'],
    ['a comment not closed', `${MINIMAL}\n<!-- the end`, 'unclosed-markup 2:1'],
    ['a tag not closed', `${MINIMAL}\n<p class="x`, 'unclosed-markup 2:1'],
    ['a <style> not closed', `${MINIMAL}\n<style>p {}`, 'unclosed-markup 2:1'],
    ['an element read as text', `${MINIMAL}<noscript><p>JavaScript, please</p></noscript>`, 'forbidden-element 1:54'],
    // What a browser reads differently from a naive reader: each is refused where the browser sees it.
    [
      'a handler after a comment closed by "<!-->"',
      `${MINIMAL}<!--><img src="https://x.test/a.png" alt="" onerror="go()">-->`,
      'no-event-handler 1:98',
    ],
    ['a handler after a comment closed by "--!>"', `${MINIMAL}<!-- a --!><a onmouseover="go()">x</a> -->`, 'no-event-handler 1:68'],
    [
      'markup inside <style> (an element in <svg>)',
      `${MINIMAL}<svg><style><img src="https://x.test/a.png" onerror="go()"></style></svg>`,
      'markup-in-text-element 1:66',
    ],
    ['a handler after a quote inside an unquoted value', `${MINIMAL}<p title=a"b onclick="go()">`, 'no-event-handler 1:67'],
    ['a handler after a slash', `${MINIMAL}<p/onclick="go()">`, 'no-event-handler 1:57'],
    // A tag name longer than any list of names: read to its end, as the browser does, never cut short.
    [
      'a <meta> refresh after a 64-character tag name',
      `${MINIMAL}<${'a'.repeat(63)}x=" ><meta http-equiv=refresh content='0;url=https://x.test/'>">`,
      'not-a-fragment 1:123',
    ],
    [
      'a script URL inside a list of values (SVG <animate values=>)',
      `${MINIMAL}<svg><a><animate values="https://x.test/;javascript:go()" /></a></svg>`,
      'no-javascript-url 1:71',
    ],
    ["an id of the gateway's own (its data block)", `<div id="wr-data" hidden>x</div>${MINIMAL}`, 'reserved-id 1:6'],
    ["an id of the gateway's own (the live place)", `<p id=big>#1</p>${MINIMAL}`, 'reserved-id 1:4'],
    [
      "a name= (stands in for the document's properties)",
      `${MINIMAL}<img name="hidden" src="https://x.test/a.png" alt="">`,
      'reserved-id 1:59',
    ],
    ['a <template> (inert, hides what follows when left open)', `${MINIMAL}<template>`, 'forbidden-element 1:54'],
    ['a <select> (the page takes no input)', `${MINIMAL}<select><option>a</option></select>`, 'forbidden-element 1:54'],
    ['a <form>', `${MINIMAL}<form action="https://x.test/"><button>go</button></form>`, 'forbidden-element 1:54'],
    [
      'an <svg> left open',
      `${MINIMAL}
<svg viewBox="0 0 1 1"><circle r="1" /></svg>
<svg>`,
      'unclosed-markup 3:1',
    ],
    ['a NUL character', `${MINIMAL}<p>a\u0000b</p>`, 'not-text 1:58'],
    ['half of a surrogate pair', `${MINIMAL}<p>a\ud800b</p>`, 'not-text 1:58'],
    ['a script after emoji (columns count characters)', `<p>😀😀<script></script></p>${MINIMAL}`, 'no-script 1:6'],
    ['a script after lines ended by carriage returns', `a\rb\r\n${MINIMAL}\r<script></script>`, 'no-script 4:1'],
    [
      `a repeatable placeholder over ${MAX_REPEATS} times`,
      `${MINIMAL}${'{{eventName}}'.repeat(MAX_REPEATS + 1)}`,
      `duplicate-placeholder 1:${54 + 13 * MAX_REPEATS}`,
    ],
  ];
  for (const [name, template, expected] of refused)
    it(`refuses ${name}, naming the rule, line and column`, () => expect(where(template)).toBe(expected));

  it('refuses a template over the size cap, naming the line where the cap is crossed', () => {
    const line = `<p>${'ü'.repeat(100)}</p>\n`; // 208 bytes
    const big = MINIMAL + '\n' + line.repeat(Math.ceil(MAX_TEMPLATE_BYTES / 208));
    const p = templateProblem(big)!;
    expect(p.rule).toBe('too-large');
    const crossed = Math.floor((MAX_TEMPLATE_BYTES - MINIMAL.length - 1) / 208) + 2;
    expect(p.line).toBe(crossed);
    expect(templateProblem(MINIMAL + ' '.repeat(MAX_TEMPLATE_BYTES - MINIMAL.length))).toBeNull();
  });

  it('accepts <svg> closed or self-closing, and ids of its own', () => {
    expect(templateProblem(`<svg viewBox="0 0 1 1" id="brand"><circle r="1"/></svg><svg/>${MINIMAL}<p id="footer">x</p>`)).toBeNull();
  });

  it("lists every id the template page renders among the gateway's own", () => {
    const html = render(EXAMPLE);
    const own = new Set([...EXAMPLE.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!));
    const gateway = [...html.matchAll(/\sid="([^"]+)"/g)].map((m) => m[1]!).filter((id) => !own.has(id));
    expect(gateway).toContain('wr-data');
    expect(gateway.filter((id) => !RESERVED_IDS.has(id))).toEqual([]);
  });

  it('accepts the placeholders without an id more than once (the name in the header and the footer)', () => {
    expect(
      templateProblem(
        `<header>{{eventName}} {{logo}}</header>${MINIMAL}<footer>{{eventName}} {{languageSwitch}} {{languageSwitch}}</footer>`,
      ),
    ).toBeNull();
  });

  it('accepts what HTML reads as text: a lone "<", "{" and "}}", spaces inside the braces, unquoted attributes', () => {
    expect(templateProblem('<p>1 < 2 and {x} }}</p><h1>{{ headline }}</h1><p class=big>{{position}}</p>')).toBeNull();
  });

  it('is checked by the event schema, its problem carrying the rule, line and column', () => {
    const result = pageTemplateInput().safeParse({ template: '<h1>{{headline}}</h1>\n<p onclick="x">{{position}}</p>' });
    expect(result.success).toBe(false);
    const issue = result.error!.issues[0]!;
    expect(issue.path).toEqual(['template']);
    expect(issue.message).toMatch(/^line 2, column 4: no onclick=.*\(rule no-event-handler\)$/);
    expect(issue.code === 'custom' && issue.params).toEqual({
      gatewayCode: 'PAGE_TEMPLATE_INVALID',
      rule: 'no-event-handler',
      line: 2,
      column: 4,
    });
  });
});

/** Markup that is fine anywhere in a template. */
const GOOD = [
  '<p>',
  '</p>',
  '<div class="a b">',
  '</div>',
  '\n',
  '  ',
  'text',
  '&amp;',
  '<!-- note -->',
  '<style>p { color: red }</style>',
  "<a href='/x'>",
];
/** A broken piece, the offset of its problem within it, and the rule. Unclosed ones only come last. */
const BAD: [string, number, string][] = [
  ['<script>', 0, 'no-script'],
  ['{{nope}}', 0, 'unknown-placeholder'],
  ['<a onclick="x">', 3, 'no-event-handler'],
  ['<a href="javascript:x">', 3, 'no-javascript-url'],
  ['<head>', 0, 'not-a-fragment'],
  ['<embed>', 0, 'forbidden-element'],
  ['<p title="{{wait}}">', 10, 'placeholder-position'],
  ['{{ wait\n}}', 0, 'unclosed-placeholder'],
];
const UNCLOSED: [string, number, string][] = [
  ['<!-- x', 0, 'unclosed-markup'],
  ['<p class="x', 0, 'unclosed-markup'],
];

/** A template of good pieces with some placeholders (not the required ones), each at most once. */
const goodTemplate = fc
  .tuple(
    fc.array(fc.constantFrom(...GOOD), { maxLength: 30 }),
    fc.shuffledSubarray(NAMES.filter((n) => n !== 'headline' && n !== 'position')),
  )
  .chain(([pieces, names]) =>
    fc
      .shuffledSubarray([...pieces, ...names.map((n) => `{{${n}}}`)], { minLength: pieces.length + names.length })
      .map((all) => all.join('')),
  );

describe('page template rules (properties)', () => {
  it('name a line and column that exist, whatever the template', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(fc.constantFrom(...GOOD, ...BAD.map((b) => b[0]), '{{', '}}', '<', '{{headline}}')), { maxLength: 40 }),
        (pieces) => {
          const template = pieces.join('');
          const p = templateProblem(template);
          if (!p) return;
          const lines = template.split('\n');
          expect(p.line).toBeGreaterThanOrEqual(1);
          expect(p.line).toBeLessThanOrEqual(lines.length);
          expect(p.column).toBeGreaterThanOrEqual(1);
          expect(p.column).toBeLessThanOrEqual(lines[p.line - 1]!.length + 1);
        },
      ),
    );
  });

  it('name the first broken piece: its rule, at its line and column', () => {
    const broken = fc.oneof(
      fc.tuple(goodTemplate, fc.constantFrom(...BAD), goodTemplate),
      fc.tuple(goodTemplate, fc.constantFrom(...UNCLOSED), fc.constant('')),
    );
    fc.assert(
      fc.property(broken, ([before, [bad, offset, rule], after]) => {
        const template = `${before}${bad}${after}`;
        const at = (before + bad.slice(0, offset)).split('\n');
        expect(templateProblem(template)).toMatchObject({ rule, line: at.length, column: at.at(-1)!.length + 1 });
      }),
    );
  });

  it('accept any good template with the required placeholders', () => {
    fc.assert(
      fc.property(goodTemplate, goodTemplate, (a, b) => {
        expect(templateProblem(`${a}{{headline}}${b.replace(/\{\{\w+\}\}/g, '')}{{position}}`)).toBeNull();
      }),
    );
  });
});

const STATUS: StatusBody = {
  state: 'waiting',
  eventName: 'Summer Tour',
  policy: 'random',
  position: 1234,
  positionRange: null,
  counting: false,
  ahead: 1233,
  estimatedWaitSeconds: 540,
  pollAfterMs: 5000,
  saleStartsAt: '2026-01-01T10:00:00.000Z',
  commitment: 'ab'.repeat(32),
  entrantId: 'v-1',
  lane: null,
  asOf: '2026-01-01T10:00:00.000Z',
  stock: { left: 2000, held: 120, seatsPerBuyer: 2.4, sellOutLikely: true },
};
const TEXTS = { t: MESSAGES.en, script: 'SCRIPT', style: 'STYLE' };
const render = (template: string, status: StatusBody = STATUS, page: Record<string, string> = {}, t = MESSAGES.en) =>
  String(templatePage('ev-1', status, 'en', { ...page, template }, { ...TEXTS, t }, { nowMs: Date.parse('2026-01-01T09:00:00Z') }));

describe('template page', () => {
  it('keeps the template’s text as it is and puts each placeholder’s element, with the ids the script updates', () => {
    const html = render(EXAMPLE, STATUS, { message: 'Doors at 19:00', logoUrl: 'https://x.test/logo.png' });
    expect(html).toContain('<footer class="small">Questions? Write to tickets@example.com.');
    expect(html).toContain('<p class="place"><span id="big" data-wr="position" data-testid="big">#1,234</span></p>');
    expect(html).toContain('<h1><span id="headline" data-wr="headline" data-testid="headline">You are in line</span></h1>');
    expect(html).toContain('<img data-wr="logo" src="https://x.test/logo.png" alt="" />');
    for (const id of [
      'headline',
      'sub',
      'bigLabel',
      'big',
      'ahead',
      'wait',
      'countdown',
      'stock',
      'stockWarn',
      'steps',
      'bar',
      'progress',
      'moved',
      'policy',
      'updated',
    ])
      expect(html.match(new RegExp(` id="${id}"`, 'g')), id).toHaveLength(1);
    for (const name of NAMES) expect(html, name).not.toContain(`{{${name}}}`);
    expect(html).toContain('<script type="application/json" id="wr-data">');
    expect(html).toContain('<script>SCRIPT</script>');
    expect(html.match(/<script/g)).toHaveLength(2);
  });

  it('shows nothing for the logo and message an event does not have, and hides empty values', () => {
    const html = render(EXAMPLE, { ...STATUS, state: 'sold_out', position: null, ahead: null, stock: null });
    expect(html).not.toContain('data-wr="logo"');
    expect(html).not.toContain('data-wr="message"');
    expect(html).toContain('<span id="big" data-wr="position" data-testid="big" hidden></span>');
  });

  const hostile = fc
    .tuple(
      fc.string({ maxLength: 8 }),
      fc.constantFrom('<i data-x="1">', '"><i data-x=1>', "'><i data-x=1>", '</span><i data-x=1>'),
      fc.string({ maxLength: 8 }),
    )
    .map(([a, core, b]) => a + core + b);

  it('escapes every value it inserts: the event name, message, logo URL, draw ids and the organizer’s own words', () => {
    fc.assert(
      fc.property(
        hostile,
        hostile,
        hostile,
        hostile,
        fc.constantFrom(...(Object.keys(MESSAGES.en) as (keyof typeof MESSAGES.en)[])),
        (name, message, id, word, key) => {
          const html = render(
            EXAMPLE,
            { ...STATUS, eventName: name, entrantId: id, commitment: id },
            { message, logoUrl: `https://x.test/${word}` },
            { ...MESSAGES.en, [key]: word },
          );
          const body = html.slice(0, html.indexOf('<script type="application/json"'));
          expect(body).not.toContain('<i data-x');
          // The data block: no "<" at all, so nothing closes the script element early.
          const data = html.slice(html.indexOf('id="wr-data">') + 13, html.indexOf('</script>'));
          expect(data).not.toContain('<');
        },
      ),
    );
  });
});
