// The words of the "checking your browser" step (proof of work before a place): one table per language, the same keys in each.
import type { Lang } from '../../contracts/i18n';

const EN = {
  headline: 'Checking your browser',
  sub: 'A short check keeps bots out of the line. It runs by itself in a few seconds.',
  working: 'Checking… {p} %',
  joining: 'Done. Getting your place…',
  again: 'Starting a new check…',
  retrying: 'Connection trouble; trying again in {s} s.',
  failed: 'The check did not work. Reload to try again.',
  cookies: 'Your browser did not keep our cookie, so it cannot keep your place. Allow cookies for this site and reload.',
  noScript: 'This page needs JavaScript to check your browser before you join the line. Turn it on and reload.',
};

/** The check step's strings, by key. */
export type CheckMessages = Record<keyof typeof EN, string>;

/**
 * Every string of the check step, per language (the languages of contracts/i18n.ts). `{p}` and
 * `{s}` slots are filled by the page (the same slots in every language: test/unit/messages.test.ts).
 */
export const CHECK_MESSAGES: Record<Lang, CheckMessages> = {
  en: EN,
  'zh-Hant': {
    headline: '正在檢查您的瀏覽器',
    sub: '簡短檢查可防止機器人排隊，會自動進行，只需幾秒。',
    working: '檢查中… {p} %',
    joining: '完成，正在取得您的順位…',
    again: '重新開始檢查…',
    retrying: '連線不穩，{s} 秒後重試。',
    failed: '檢查未完成，請重新整理再試。',
    cookies: '您的瀏覽器未保留本站 Cookie，無法保留順位。請允許本站 Cookie 後重新整理。',
    noScript: '此頁面需要 JavaScript 才能在排隊前檢查您的瀏覽器。請開啟後重新整理。',
  },
  'zh-Hans': {
    headline: '正在检查您的浏览器',
    sub: '简短检查可防止机器人排队，会自动进行，只需几秒。',
    working: '检查中… {p} %',
    joining: '完成，正在获取您的位置…',
    again: '重新开始检查…',
    retrying: '连接不稳定，{s} 秒后重试。',
    failed: '检查未完成，请刷新再试。',
    cookies: '您的浏览器没有保留本站 Cookie，无法保留位置。请允许本站 Cookie 后刷新。',
    noScript: '此页面需要 JavaScript 才能在排队前检查您的浏览器。请启用后刷新。',
  },
  ja: {
    headline: 'ブラウザを確認しています',
    sub: '短い確認でボットの列への参加を防ぎます。数秒で自動的に終わります。',
    working: '確認中… {p} %',
    joining: '完了。順番を取得しています…',
    again: '確認をやり直しています…',
    retrying: '接続が不安定です。{s} 秒後に再試行します。',
    failed: '確認できませんでした。再読み込みしてください。',
    cookies: 'ブラウザが Cookie を保存しないため順番を保てません。このサイトの Cookie を許可して再読み込みしてください。',
    noScript: '列に並ぶ前の確認に JavaScript が必要です。有効にして再読み込みしてください。',
  },
  ko: {
    headline: '브라우저를 확인하는 중',
    sub: '짧은 확인으로 봇이 줄을 서지 못하게 합니다. 몇 초면 자동으로 끝납니다.',
    working: '확인 중… {p} %',
    joining: '완료. 순서를 받는 중…',
    again: '다시 확인하는 중…',
    retrying: '연결이 불안정합니다. {s}초 후 다시 시도합니다.',
    failed: '확인하지 못했습니다. 새로 고쳐 다시 시도하세요.',
    cookies: '브라우저가 쿠키를 저장하지 않아 순서를 유지할 수 없습니다. 이 사이트의 쿠키를 허용하고 새로 고치세요.',
    noScript: '줄을 서기 전 확인에 JavaScript가 필요합니다. 켜고 새로 고치세요.',
  },
  es: {
    headline: 'Comprobando tu navegador',
    sub: 'Una breve comprobación impide que los bots hagan fila. Se hace sola en unos segundos.',
    working: 'Comprobando… {p} %',
    joining: 'Listo. Obteniendo tu puesto…',
    again: 'Empezando otra comprobación…',
    retrying: 'Problemas de conexión; reintentamos en {s} s.',
    failed: 'La comprobación falló. Recarga para intentarlo de nuevo.',
    cookies: 'Tu navegador no guardó nuestra cookie, así que no puede conservar tu puesto. Permite las cookies de este sitio y recarga.',
    noScript: 'Esta página necesita JavaScript para comprobar tu navegador antes de entrar en la fila. Actívalo y recarga.',
  },
};
