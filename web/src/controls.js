// The page's buttons, lists and keys, bound to the App. Every key is a shortcut for a button
// (KEYS names the button's id), so a key and its button always do the same thing; the keys
// are those of the Qt GUI (popucom/gui/main_window.py): arrows in the tree, Home/End, A for the
// analysis, Esc for "move now".

import { LANGUAGES } from './i18n.js';

const $ = (id) => document.getElementById(id);

/** Button id -> what it does to the game tree (through App.navigate). */
const NAVIGATION = {
  'nav-start': (tree) => tree.toStart(),
  'nav-back': (tree) => tree.back(),
  'nav-forward': (tree) => tree.forward(),
  'nav-end': (tree) => tree.toEnd(),
  'nav-prev-variation': (tree) => tree.sibling(-1),
  'nav-next-variation': (tree) => tree.sibling(+1),
};

const KEYS = {
  ArrowLeft: 'nav-back',
  ArrowRight: 'nav-forward',
  ArrowUp: 'nav-prev-variation',
  ArrowDown: 'nav-next-variation',
  Home: 'nav-start',
  End: 'nav-end',
  Escape: 'move-now',
  a: 'analyze',
  A: 'analyze',
};

/** Button id -> action, for the buttons and their keys. */
function buttonActions(app) {
  const actions = {
    'new-game': () => app.newGame(),
    undo: () => app.undo(),
    'move-now': () => app.moveNow(),
    analyze: () => app.toggleAnalysis(),
    'save-sgf': () => app.download('sgf'),
    'save-jsonl': () => app.download('jsonl'),
    promote: () => app.promoteCurrent(),
    'delete-variation': () => app.deleteCurrent(),
  };
  for (const [id, step] of Object.entries(NAVIGATION)) actions[id] = () => app.navigate(() => step(app.tree));
  return actions;
}

function onKey(event, actions) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const id = KEYS[event.key];
  if (!id) return;
  // Fields use the keys themselves (a list its arrows, the comment every key); from a list or
  // the file button, Esc still stops the AI.
  const typing = event.target.closest?.('textarea');
  const inField = event.target.closest?.('input, select');
  if (typing || (inField && id !== 'move-now')) return;
  event.preventDefault();
  actions[id]();
}

export function bindControls(app) {
  const actions = buttonActions(app);
  for (const [id, action] of Object.entries(actions)) $(id).addEventListener('click', () => action());
  const langSelect = $('lang-select');
  langSelect.replaceChildren(...Object.entries(LANGUAGES).map(([value, name]) => new Option(name, value)));
  langSelect.addEventListener('change', () => app.setLang(langSelect.value));
  $('mode-select').addEventListener('change', () => app.setMode($('mode-select').value));
  $('level-select').addEventListener('change', () => app.setLevel($('level-select').value));
  $('open-file').addEventListener('change', (event) => app.openFile(event.target));
  $('record-games').addEventListener('change', () => app.chooseRecordGame(Number($('record-games').value)));
  $('comment').addEventListener('input', () => app.setComment($('comment').value));
  document.addEventListener('keydown', (event) => onKey(event, actions));
}
