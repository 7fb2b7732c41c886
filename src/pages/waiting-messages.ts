// The waiting page's words in English and Traditional Chinese, chosen from Accept-Language.

/** Languages the waiting page speaks. */
export type Lang = 'en' | 'zh-Hant';

/**
 * Picks the page language from an Accept-Language header (RFC 9110 section 12.5.4): the first
 * language tag by quality that we speak; Chinese (`zh`, `zh-TW`, `zh-HK`, `zh-Hant`) gets
 * Traditional Chinese, everything else English.
 */
export function pickLang(acceptLanguage: string | undefined): Lang {
  const tags = (acceptLanguage ?? '')
    .split(',')
    .map((part) => {
      const [tag, ...params] = part.trim().toLowerCase().split(';');
      const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
      return { tag: tag ?? '', q: q ? Number(q.slice(2)) || 0 : 1 };
    })
    .filter((t) => t.tag && t.q > 0)
    .sort((a, b) => b.q - a.q);
  for (const { tag } of tags) {
    if (tag === 'zh' || tag.startsWith('zh-')) return tag === 'zh-cn' || tag === 'zh-sg' || tag === 'zh-hans' ? 'en' : 'zh-Hant';
    if (tag === 'en' || tag.startsWith('en-')) return 'en';
  }
  return 'en';
}

const EN = {
  title: 'Waiting room',
  not_open: 'The sale has not started yet',
  waiting: 'You are in line',
  paused: 'The queue is paused',
  closed: 'The sale is closed',
  sold_out: 'Sold out',
  admitted: 'It is your turn!',
  keepOpen: 'Keep this page open. It updates by itself.',
  saleStarts: 'The sale starts at {t}. Keep this page open.',
  countdown: 'Starts in {t}',
  pausedSub: 'The organizer paused the queue. Nobody loses their place.',
  endedSub: 'No more tickets will be released.',
  soldOutSub: 'Every ticket is sold or reserved. If some come back, this page will tell you.',
  ahead: '{n} people ahead of you',
  aheadOne: '1 person ahead of you',
  next: 'You are next.',
  soon: 'Soon',
  drawnAtStart: 'Places are drawn at random when the sale starts.',
  waitUnknown: 'Estimated wait: unknown while nobody is released',
  waitUnderMinute: 'Estimated wait: less than a minute',
  waitRange: 'Estimated wait: about {lo}-{hi} min',
  waitAbout: 'Estimated wait: about {lo} min',
  fifo: 'First come, first served: your place is set by when you arrived. Reloading or opening more tabs does not change it.',
  random:
    'Fair lottery: everyone who arrives before the sale starts gets a random place at the start; later arrivals join behind them. More tabs do not add chances.',
  updated: 'Updated {t}',
  retrying: 'Connection trouble; trying again in {s} s. You keep your place.',
  noScript: 'This page reloads itself every {s} seconds.',
  commitment: 'Draw commitment (SHA-256 of the secret seed, revealed after the draw):',
  verify: 'check the draw',
};

/** The page's strings, by key. */
export type Messages = Record<keyof typeof EN, string>;

/** Every string of the page; `{n}`-style slots are filled by the page script. */
export const MESSAGES: Record<Lang, Messages> = {
  en: EN,
  'zh-Hant': {
    title: '排隊等候室',
    not_open: '尚未開賣',
    waiting: '您正在排隊',
    paused: '排隊已暫停',
    closed: '銷售已結束',
    sold_out: '已售完',
    admitted: '輪到您了！',
    keepOpen: '請保持此頁面開啟，頁面會自動更新。',
    saleStarts: '開賣時間：{t}。請保持此頁面開啟。',
    countdown: '距離開賣還有 {t}',
    pausedSub: '主辦單位暫停了排隊，所有人的順位都會保留。',
    endedSub: '不會再釋出更多票券。',
    soldOutSub: '所有票券均已售出或保留中。若有票券釋出，此頁面會通知您。',
    ahead: '您前面還有 {n} 人',
    aheadOne: '您前面還有 1 人',
    next: '下一位就是您。',
    soon: '即將開始',
    drawnAtStart: '順位將在開賣時隨機抽出。',
    waitUnknown: '預估等候時間：暫停釋出期間無法估計',
    waitUnderMinute: '預估等候時間：不到一分鐘',
    waitRange: '預估等候時間：約 {lo}–{hi} 分鐘',
    waitAbout: '預估等候時間：約 {lo} 分鐘',
    fifo: '先到先得：您的順位取決於抵達的時間。重新整理或開啟多個分頁都不會改變順位。',
    random: '公平抽籤：開賣前抵達的每個人，都會在開賣時獲得一個隨機順位；之後抵達的人依抵達順序排在後面。開啟多個分頁不會增加機會。',
    updated: '更新於 {t}',
    retrying: '連線不穩，{s} 秒後重試。您的順位會保留。',
    noScript: '此頁面每 {s} 秒自動重新整理。',
    commitment: '抽籤承諾值（秘密種子的 SHA-256，抽籤後公開種子）：',
    verify: '查核抽籤',
  },
};
