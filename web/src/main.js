// The page's entry point: loads the rules (wasm), constants.json and levels.json, builds the
// App, connects the engine worker, registers the service worker, and exposes window.popucom,
// the hook browser tests drive (web_spec: "Test hook"). Every URL is relative to the site.

import { App } from './app.js';
import { EngineClient } from './engine_client.js';
import { readLevels } from './levels.js';
import { loadRules } from './rules.js';

const SITE = new URL('../', import.meta.url); // dist/, where levels.json and the models lie

async function fetchJson(name) {
  const response = await fetch(new URL(name, SITE));
  if (!response.ok) throw new Error(`${name}: HTTP ${response.status}`);
  return response.json();
}

function registerServiceWorker() {
  if (!('serviceWorker' in navigator)) return;
  navigator.serviceWorker.register(new URL('sw.js', SITE)).catch(() => {}); // offline use is a bonus, never an error
}

async function start() {
  const [rules, constants, levelsJson] = await Promise.all([loadRules(SITE.href), fetchJson('constants.json'), fetchJson('levels.json')]);
  const app = new App(rules, normalConstants(constants), readLevels(levelsJson));
  window.popucom.app = app;
  app.engineStarting = EngineClient.start(SITE.href, constants);
  await app.newGame();
  app.say('loading');
  try {
    app.engine = await app.engineStarting;
    app.say('ready');
  } catch (error) {
    app.say('engineFailed', { error });
  }
  registerServiceWorker();
  return app;
}

/** constants.json (snake_case, as Python writes it) with the names the page uses. */
function normalConstants(raw) {
  return { ...raw, boardSize: raw.board_size, maxGamePlies: raw.max_game_plies, numSquares: raw.num_squares };
}

let started = null; // the start's promise, made once the hook below exists
const withApp = (fn) => async (...args) => fn(await started, ...args);

window.popucom = {
  ready: null,
  app: null,
  state: () => window.popucom.app?.state(),
  newGame: withApp((app, options) => app.newGame(options)),
  clickSquare: withApp((app, square) => app.clickSquare(square)),
  loadRecordText: withApp((app, text, filename) => app.loadRecordText(text, filename)),
  saveRecordText: (format) => window.popucom.app.saveRecordText(format),
  moveNow: withApp((app) => app.moveNow()),
  setLang: withApp((app, lang) => app.setLang(lang)),
  tree: {
    back: withApp((app) => app.navigate(() => app.tree.back())),
    forward: withApp((app) => app.navigate(() => app.tree.forward())),
    nextVariation: withApp((app) => app.navigate(() => app.tree.sibling(+1))),
    prevVariation: withApp((app) => app.navigate(() => app.tree.sibling(-1))),
  },
};
started = start();
window.popucom.ready = started.then(() => undefined);
started.catch((error) => {
  const message = document.getElementById('message');
  if (message) message.textContent = `${error.message ?? error}`;
});
