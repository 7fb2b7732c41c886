// The waiting, draw and maintenance pages' words in French (fr).
import type { Messages } from './en';

/** French. */
export const FR: Messages = {
  title: "Salle d'attente",
  lang: 'Langue',
  h_not_open: "La vente n'a pas encore commencé",
  h_prequeue: 'Vous participez au tirage au sort',
  h_drawing: 'Tirage au sort des places',
  h_waiting: "Vous êtes dans la file d'attente",
  h_paused: 'La file est en pause',
  h_closed: 'La vente est terminée',
  h_sold_out: 'Complet',
  h_admitted: "C'est votre tour !",
  s_not_open: 'Début de la vente : {t}. Gardez cette page ouverte : vous conservez votre place et elle se met à jour toute seule.',
  s_prequeue:
    "Toutes les personnes arrivées avant l'ouverture ({t}) reçoivent une place au hasard au début de la vente : inutile de vous presser ou de recharger la page.",
  s_drawing: 'La vente a commencé et les places sont tirées au sort. La vôtre apparaîtra ici dans un instant.',
  s_waiting: "Gardez cette page ouverte. Elle se met à jour toute seule et vous mène à la vente quand c'est votre tour.",
  s_paused: "L'organisateur a mis la file en pause un instant. Personne ne perd sa place ; elle reprendra toute seule.",
  s_closed: 'Aucun autre billet ne sera mis en vente.',
  s_sold_out: 'Tous les billets sont vendus ou réservés pour le moment. Si certains se libèrent, cette page vous le dira.',
  s_admitted: 'Nous vous emmenons vers la vente…',
  placeLabel: 'Votre place dans la file',
  stockLeft:
    'Billets encore en vente : {left} (et {held} réservés en ce moment par des acheteurs, qui reviennent en vente s’ils ne sont pas payés)',
  stockWarn:
    'Risque de rupture avant votre tour : les personnes devant vous achètent environ {per} billets chacune. Gardez votre place au cas où des billets se libèrent.',
  stockWarnOne:
    'Risque de rupture avant votre tour : il y a plus de personnes devant vous que de billets restants. Gardez votre place au cas où des billets se libèrent.',
  placeRange: 'n° {lo}–{hi}',
  placeAfter: 'après le n° {n}',
  aheadRange:
    'Entre {lo} et {hi} personnes devant vous (les personnes arrivées dans la même seconde que vous sont dans un ordre pas encore compté)',
  aheadMore: 'Plus de {n} personnes devant vous',
  counting: 'Nous comptons toutes les personnes arrivées dans la même seconde que vous : votre place s’affiche dans un instant.',
  startsIn: 'La vente commence dans',
  countdown: 'Début dans {t}',
  ahead: '{n} personnes devant vous',
  aheadOne: '1 personne devant vous',
  next: 'Vous êtes le prochain.',
  moved: 'Places gagnées depuis votre arrivée : {n}.',
  waitUnknown: "Attente estimée : impossible de l'estimer pour l'instant",
  waitPaused: 'Attente estimée : suspendue pendant la pause de la file',
  waitUnderMinute: "Attente estimée : moins d'une minute",
  waitRange: 'Attente estimée : environ {lo} à {hi} min',
  waitAbout: 'Attente estimée : environ {lo} min',
  steps: 'Progression',
  stepOpen: 'Ouverture',
  stepDraw: 'Tirage',
  stepLine: 'Dans la file',
  stepTurn: 'Votre tour',
  fifo: "Premier arrivé, premier servi : votre place dépend de votre heure d'arrivée. Recharger la page ou ouvrir d'autres onglets ne la change pas.",
  random:
    "Tirage au sort équitable : toutes les personnes arrivées avant le début de la vente reçoivent une place au hasard à l'ouverture ; les suivantes se placent derrière elles. Plus d'onglets ne donnent pas plus de chances.",
  updated: 'Mis à jour à {t}',
  retrying: 'Problème de connexion ; nouvel essai dans {s} s. Vous gardez votre place.',
  noScript: 'Cette page se recharge toute seule toutes les {s} secondes.',
  commitment: 'Engagement du tirage (SHA-256 de la graine secrète, révélée après le tirage) :',
  verify: 'voir le procès-verbal du tirage',
  preview: 'Aperçu avec des données d’exemple. Les visiteurs ne voient jamais cette ligne.',
  maintTitle: 'En maintenance',
  maintBack: 'Merci de revenir après {t}. Si vous aviez une place dans la file, vous la gardez.',
  drawTitle: 'Tirage au sort',
  drawPending:
    "Le tirage n'a pas encore eu lieu. L'engagement ci-dessous a été publié avant la vente ; la graine correspondante est révélée après le tirage, si bien que personne ne peut changer l'ordre après coup.",
  drawDone: "Le tirage est terminé : {n} participants. Chacun peut recalculer l'ordre à partir de la graine.",
  drawCommitment: 'Engagement : SHA-256 de la graine, publié avant la vente',
  drawSeed: 'Graine, révélée après le tirage',
  drawRule: "L'ordre : le SHA-256 de « graine:id » de chaque participant, du plus petit au plus grand.",
  drawCheck:
    "Votre navigateur vérifie lui-même le tirage à partir de la graine ci-dessus. Pour le vérifier hors ligne avec une copie du projet : npm run verify-draw -- suivi de l'adresse de cette page.",
  afterDraw:
    "Vous êtes arrivé après le tirage de l'ouverture : vous êtes dans la file par ordre d'arrivée, derrière toutes les personnes du tirage.",
  drawVerifying: 'Vérification du tirage dans votre navigateur…',
  drawVerified:
    "Vérifié dans votre navigateur : la graine correspond à l'engagement, et classer les {n} participants selon elle donne exactement cet ordre.",
  drawMismatch: 'Non vérifié : à la place {rank}, le procès-verbal indique {listed}, mais la graine y place {expected}.',
  drawBadSeed: "Non vérifié : la graine ne correspond pas à l'engagement publié avant la vente.",
  drawVerifyFailed:
    "Votre navigateur n'a pas pu vérifier le tirage (pas de connexion ou pas de Web Crypto). Réessayez, ou vérifiez-le hors ligne.",
  drawOrder: "Les {n} premiers sur {total} dans l'ordre du tirage (identifiants : aléatoires par visiteur, ou hachages à clé des comptes)",
  drawJson: 'Le procès-verbal en JSON',
  yourEntrant: 'Votre identifiant de participant au tirage :',
  findRank: 'trouver votre rang',
  drawRank: "Le participant {id} est n° {rank} sur {total} dans l'ordre du tirage.",
  drawNotIn: 'Le participant {id} ne fait pas partie de ce tirage.',
};
