// The words of the waiting, draw and maintenance pages: one file per language in messages/, the same keys in each.
import type { Lang } from '../../contracts/i18n';
import { DE } from './messages/de';
import { EN, type Messages } from './messages/en';
import { ES } from './messages/es';
import { FR } from './messages/fr';
import { ID } from './messages/id';
import { IT } from './messages/it';
import { JA } from './messages/ja';
import { KO } from './messages/ko';
import { PT_BR } from './messages/pt-br';
import { TH } from './messages/th';
import { VI } from './messages/vi';
import { ZH_HANS } from './messages/zh-hans';
import { ZH_HANT } from './messages/zh-hant';

export type { Messages };

/**
 * Every string of the waiting, draw and maintenance pages, per language. `{n}`-style slots are filled by the
 * page (the same slots in every language: test/unit/messages.test.ts checks keys and slots).
 */
export const MESSAGES: Record<Lang, Messages> = {
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
