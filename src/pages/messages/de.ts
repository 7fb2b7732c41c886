// The waiting, draw and maintenance pages' words in German (de).
import type { Messages } from './en';

/** German. */
export const DE: Messages = {
  title: 'Warteraum',
  lang: 'Sprache',
  h_not_open: 'Der Verkauf hat noch nicht begonnen',
  h_prequeue: 'Sie nehmen an der Verlosung teil',
  h_drawing: 'Die Plätze werden ausgelost',
  h_waiting: 'Sie sind in der Warteschlange',
  h_paused: 'Die Warteschlange ist angehalten',
  h_closed: 'Der Verkauf ist beendet',
  h_sold_out: 'Ausverkauft',
  h_admitted: 'Sie sind an der Reihe!',
  s_not_open: 'Verkaufsstart: {t}. Lassen Sie diese Seite geöffnet: Ihr Platz bleibt erhalten und die Seite aktualisiert sich von selbst.',
  s_prequeue:
    'Alle, die vor dem Start ({t}) ankommen, erhalten bei Verkaufsbeginn einen zufälligen Platz. Sie müssen sich also nicht beeilen und die Seite nicht neu laden.',
  s_drawing: 'Der Verkauf hat begonnen und die Plätze werden ausgelost. Ihr Platz erscheint gleich hier.',
  s_waiting: 'Lassen Sie diese Seite geöffnet. Sie aktualisiert sich von selbst und bringt Sie zum Verkauf, wenn Sie an der Reihe sind.',
  s_paused: 'Der Veranstalter hat die Warteschlange kurz angehalten. Niemand verliert seinen Platz; es geht von selbst weiter.',
  s_closed: 'Es werden keine weiteren Tickets freigegeben.',
  s_sold_out: 'Alle Tickets sind derzeit verkauft oder reserviert. Falls welche zurückkommen, erfahren Sie es auf dieser Seite.',
  s_admitted: 'Sie werden zum Verkauf weitergeleitet …',
  placeLabel: 'Ihr Platz in der Warteschlange',
  stockLeft:
    'Noch erhältliche Tickets: {left} (dazu {held}, die gerade von Käufern reserviert sind und zurückkommen, falls sie nicht bezahlt werden)',
  stockWarn:
    'Wahrscheinlich ausverkauft, bevor Sie an der Reihe sind: Die Personen vor Ihnen kaufen im Schnitt etwa {per} Tickets. Behalten Sie Ihren Platz, falls Tickets zurückkommen.',
  stockWarnOne:
    'Wahrscheinlich ausverkauft, bevor Sie an der Reihe sind: Vor Ihnen sind mehr Personen, als Tickets übrig sind. Behalten Sie Ihren Platz, falls Tickets zurückkommen.',
  placeRange: 'Nr. {lo}–{hi}',
  placeAfter: 'nach Nr. {n}',
  aheadRange:
    'Zwischen {lo} und {hi} Personen vor Ihnen (wer in derselben Sekunde wie Sie angekommen ist, steht in einer noch nicht gezählten Reihenfolge an)',
  aheadMore: 'Mehr als {n} Personen vor Ihnen',
  counting: 'Alle, die in derselben Sekunde wie Sie angekommen sind, werden gezählt: Ihr Platz erscheint gleich.',
  startsIn: 'Der Verkauf beginnt in',
  countdown: 'Beginnt in {t}',
  ahead: '{n} Personen vor Ihnen',
  aheadOne: '1 Person vor Ihnen',
  next: 'Sie sind als Nächstes dran.',
  moved: 'Seit Ihrer Ankunft vorgerückte Plätze: {n}.',
  waitUnknown: 'Geschätzte Wartezeit: noch nicht abschätzbar',
  waitPaused: 'Geschätzte Wartezeit: ausgesetzt, solange die Warteschlange angehalten ist',
  waitUnderMinute: 'Geschätzte Wartezeit: weniger als eine Minute',
  waitRange: 'Geschätzte Wartezeit: etwa {lo}–{hi} Min.',
  waitAbout: 'Geschätzte Wartezeit: etwa {lo} Min.',
  steps: 'Fortschritt',
  stepOpen: 'Verkaufsstart',
  stepDraw: 'Verlosung',
  stepLine: 'In der Schlange',
  stepTurn: 'Sie sind dran',
  fifo: 'Wer zuerst kommt, mahlt zuerst: Ihr Platz richtet sich nach Ihrer Ankunftszeit. Neu laden oder weitere Tabs öffnen ändert daran nichts.',
  random:
    'Faire Verlosung: Alle, die vor Verkaufsbeginn ankommen, erhalten zum Start einen zufälligen Platz; wer später kommt, stellt sich dahinter an. Mehr Tabs bringen keine besseren Chancen.',
  updated: 'Aktualisiert {t}',
  retrying: 'Verbindungsprobleme; neuer Versuch in {s} s. Ihr Platz bleibt erhalten.',
  noScript: 'Diese Seite lädt sich alle {s} Sekunden selbst neu.',
  commitment: 'Festlegung der Verlosung (SHA-256 des geheimen Startwerts, der nach der Verlosung veröffentlicht wird):',
  verify: 'Protokoll der Verlosung ansehen',
  preview: 'Vorschau mit Beispieldaten. Besucher sehen diese Zeile nie.',
  maintTitle: 'Wegen Wartungsarbeiten nicht verfügbar',
  maintBack: 'Bitte kommen Sie nach {t} wieder. Falls Sie einen Platz in der Warteschlange hatten, bleibt er erhalten.',
  drawTitle: 'Verlosung',
  drawPending:
    'Die Verlosung hat noch nicht stattgefunden. Die Festlegung unten wurde vor dem Verkauf veröffentlicht; der Startwert dahinter wird nach der Verlosung bekannt gegeben, sodass niemand die Reihenfolge nachträglich ändern kann.',
  drawDone: 'Die Verlosung ist abgeschlossen: {n} Teilnehmende. Jeder kann die Reihenfolge aus dem Startwert nachrechnen.',
  drawCommitment: 'Festlegung: SHA-256 des Startwerts, vor dem Verkauf veröffentlicht',
  drawSeed: 'Startwert, nach der Verlosung veröffentlicht',
  drawRule: 'Die Reihenfolge: der SHA-256-Wert von „Startwert:ID“ jeder teilnehmenden Person, der kleinste zuerst.',
  drawCheck:
    'Ihr Browser prüft die Verlosung selbst anhand des Startwerts oben. Zur Prüfung offline mit einer Kopie des Projekts: npm run verify-draw -- gefolgt von der Adresse dieser Seite.',
  afterDraw:
    'Sie sind nach der Verlosung zum Verkaufsstart angekommen: Sie stehen nach dem Prinzip „wer zuerst kommt“ an, hinter allen aus der Verlosung.',
  drawVerifying: 'Die Verlosung wird in Ihrem Browser geprüft …',
  drawVerified:
    'In Ihrem Browser geprüft: Der Startwert passt zur Festlegung, und wenn man alle {n} Teilnehmenden danach ordnet, ergibt sich genau diese Reihenfolge.',
  drawMismatch: 'Nicht bestätigt: An Platz {rank} steht im Protokoll {listed}, laut Startwert gehört dort aber {expected} hin.',
  drawBadSeed: 'Nicht bestätigt: Der Startwert passt nicht zur vor dem Verkauf veröffentlichten Festlegung.',
  drawVerifyFailed:
    'Ihr Browser konnte die Verlosung nicht prüfen (keine Verbindung oder kein Web Crypto). Versuchen Sie es erneut oder prüfen Sie sie offline.',
  drawOrder:
    'Die ersten {n} von {total} in der Reihenfolge der Verlosung (Teilnehmer-IDs: zufällig je Besucher oder mit Schlüssel gebildete Hashes von Konten)',
  drawJson: 'Das Protokoll als JSON',
  yourEntrant: 'Ihre Teilnehmer-ID in der Verlosung:',
  findRank: 'Ihren Rang finden',
  drawRank: 'Teilnehmer {id} steht auf Platz {rank} von {total} in der Reihenfolge der Verlosung.',
  drawNotIn: 'Teilnehmer {id} ist nicht in dieser Verlosung.',
};
