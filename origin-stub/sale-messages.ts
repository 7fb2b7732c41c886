// The sale page's words: one table per language (the gateway's languages), the same keys in each.
import type { Lang } from '../contracts/i18n';
import { EN, type SaleMessages } from './sale-messages/en';
import { ZH_HANT } from './sale-messages/zh-hant';
import { ZH_HANS } from './sale-messages/zh-hans';
import { JA } from './sale-messages/ja';
import { KO } from './sale-messages/ko';
import { ES } from './sale-messages/es';
import { DE } from './sale-messages/de';
import { FR } from './sale-messages/fr';
import { IT } from './sale-messages/it';
import { PT_BR } from './sale-messages/pt-br';
import { TH } from './sale-messages/th';
import { VI } from './sale-messages/vi';
import { ID } from './sale-messages/id';

export type { SaleMessages } from './sale-messages/en';

/** Every string of the sale page, per language (one file each in sale-messages/); `{n}`-style slots are filled by the page script. */
export const SALE_MESSAGES: Record<Lang, SaleMessages> = {
  en: EN,
  'zh-Hant': ZH_HANT,
  'zh-Hans': ZH_HANS,
  ja: JA,
  ko: KO,
  es: ES,
  de: DE,
  fr: FR,
  it: IT,
  'pt-BR': PT_BR,
  th: TH,
  vi: VI,
  id: ID,
};
