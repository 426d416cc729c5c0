// The engine as a module Web Worker: the C++ search (wasm, search_session.js) with the network in
// the same module (a network file, models/*.pcnet, native_network.js) or, for an ONNX model, on
// onnxruntime-web (network.js, loaded when first needed), so the page never waits for it.
// Protocol (web_spec, "Engine worker protocol"):
//
//   {type:'init', constants}          -> {type:'ready', threads, backend} (the network files')
//   {type:'search', id, moves, komi, model, params:{visits, ...settings}, seed, temperature,
//    temperaturePlies, reportEveryMs, analysis}
//                                     -> {type:'progress', id, analysis}..., {type:'done', id, analysis, move}
//   {type:'stop'}                     the running search ends after its current network call and sends its done
//   {type:'new-game'}                 forgets every tree and evaluation cache
//   {type:'bench-net', id, model, batch, repeats}
//                                     -> {type:'bench-net', id, seconds:[one per repeat], threads, backend}
//                                        (bench/web.py)
//   any failure                       -> {type:'error', id, message}; the worker stays usable
//
// Searches run one after another, in the order they arrive. A session (tree, evaluation cache,
// random generator) is kept per model, seed and settings, as `popucom engine` keeps one
// GameSearch per player, so the same requests give the engine's moves.

import { loadCore } from './core.js';
import { NativeNetwork } from './native_network.js';
import { Network, configureRuntime } from './network.js';
import { OnnxFormatError, externalTensor } from './onnx_check.js';
import { quoted } from './quoted.js';
import { SearchSession } from './search_session.js';

const SITE = new URL('../', import.meta.url);
const MAX_SESSIONS = 3; // each holds an evaluation cache of constants.cache_mb
const NATIVE_BACKEND = { name: 'popucom wasm (SIMD128)', threads: 1 };
const TYPES = 'init, search, stop, new-game, bench-net';

let engine = null; // {core, constants} once init has finished
let initializing = null;
let onnxRuntime = null; // Promise<{ort, threads}>, from the first ONNX model on
const networks = new Map(); // model URL -> Promise<NativeNetwork | Network>
const sessions = new Map(); // session key -> SearchSession, least recently used first
let queue = Promise.resolve();
let running = null; // {id, stop} of the search in progress

class RequestError extends Error {}

function post(message) {
  self.postMessage(message);
}

function describe(error) {
  return String(error?.message ?? error).slice(0, 2000) || 'unknown error';
}

async function init(constants) {
  if (!constants || typeof constants !== 'object') throw new RequestError('init needs the constants (constants.json)');
  if (!initializing) {
    initializing = (async () => {
      engine = { core: await loadCore(SITE.href), constants };
      return engine;
    })();
    initializing.catch(() => {
      initializing = null; // a later init may try again
    });
  }
  await initializing;
  return { type: 'ready', threads: NATIVE_BACKEND.threads, backend: NATIVE_BACKEND.name };
}

function network(model) {
  const url = new URL(model, SITE);
  if (url.origin !== SITE.origin) throw new RequestError(`the model must come from this site, not ${url.origin}`);
  if (!networks.has(url.href)) {
    const loading = loadNetwork(url, model).catch((error) => {
      networks.delete(url.href);
      throw new RequestError(`cannot load the network ${model}: ${describe(error)}`);
    });
    networks.set(url.href, loading);
  }
  return networks.get(url.href);
}

/** onnxruntime-web, imported and set up once, when the first ONNX model is asked for. */
function runtime() {
  if (!onnxRuntime) {
    onnxRuntime = import(new URL('ort/ort.wasm.min.mjs', SITE).href).then((ort) => ({
      ort,
      threads: configureRuntime(ort, new URL('ort/', SITE).href),
    }));
    onnxRuntime.catch(() => {
      onnxRuntime = null; // a later model may try again
    });
  }
  return onnxRuntime;
}

/** Whether `bytes` start as a network file does (constants.json's magic). */
function isNetworkFile(bytes) {
  const magic = engine.constants.network_file_magic;
  return bytes.length >= magic.length && magic.every((byte, i) => bytes[i] === byte);
}

/** A network file on the core's forward, or else an ONNX model on onnxruntime-web. */
async function loadNetwork(url, model) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (isNetworkFile(bytes)) {
    const net = NativeNetwork.load(engine.core, bytes, `the network ${model}`);
    return Object.assign(net, { threads: NATIVE_BACKEND.threads, backend: NATIVE_BACKEND.name });
  }
  return loadOnnxModel(bytes, model);
}

/** An ONNX model's bytes, checked to hold every tensor themselves, on onnxruntime-web. */
async function loadOnnxModel(bytes, model) {
  const { constants } = engine;
  let outside;
  try {
    outside = externalTensor(bytes);
  } catch (error) {
    if (error instanceof OnnxFormatError) throw new Error(`not an ONNX model (${error.message})`);
    throw error;
  }
  if (outside !== null)
    throw new Error(`its tensor ${outside.slice(0, 60)} is stored outside the file (ONNX external data), which the page never reads`);
  const { ort, threads } = await runtime();
  const net = await Network.load(ort, bytes, constants.num_feature_planes, constants.board_size, `the network ${model}`);
  return Object.assign(net, { threads, backend: 'onnxruntime-web' });
}

function checkNumber(value, name, { lowest, highest, whole = false }) {
  const fits = typeof value === 'number' && Number.isFinite(value) && value >= lowest && value <= highest;
  if (!fits || (whole && !Number.isInteger(value))) {
    const kind = whole ? 'a whole number' : 'a number';
    throw new RequestError(`${name} must be ${kind} from ${lowest} to ${highest}, got ${quoted(value)}`);
  }
  return value;
}

/** The request with defaults filled in and every field checked; RequestError naming the first bad one. */
function checkedRequest(message) {
  const c = engine.constants;
  const { moves = [], komi = 0, model, params = {}, seed = c.seed } = message;
  if (!Array.isArray(moves) || moves.length > c.max_game_plies || moves.some((m) => typeof m !== 'string'))
    throw new RequestError(`moves must be a list of at most ${c.max_game_plies} square names`);
  if (typeof model !== 'string' || !model)
    throw new RequestError('model must name the network file, e.g. models/popucom-small-v12.pcnet');
  if (!params || typeof params !== 'object' || Array.isArray(params))
    throw new RequestError('params must be an object of search settings');
  const { visits = c.default_visits, ...settings } = params;
  for (const [name, value] of Object.entries(settings))
    if (typeof value !== 'number' && typeof value !== 'boolean')
      throw new RequestError(`search setting ${name.slice(0, 60)} must be a number or true/false`);
  const plies = { lowest: 0, highest: c.max_game_plies, whole: true };
  return {
    moves,
    komi: checkNumber(komi, 'komi', { lowest: -c.max_komi, highest: c.max_komi, whole: true }),
    model,
    settings,
    visits: checkNumber(visits, 'visits', { lowest: 1, highest: c.max_visits, whole: true }),
    seed: checkNumber(seed, 'seed', { lowest: 0, highest: Number.MAX_SAFE_INTEGER, whole: true }),
    temperature: checkNumber(message.temperature ?? 0, 'temperature', { lowest: 0, highest: c.max_temperature }),
    temperaturePlies: checkNumber(message.temperaturePlies ?? c.max_game_plies, 'temperaturePlies', plies),
    reportEveryMs: checkNumber(message.reportEveryMs ?? 200, 'reportEveryMs', { lowest: 0, highest: 3600e3 }),
    analysis: message.analysis === true,
  };
}

function session(request) {
  const { constants, core } = engine;
  const sorted = Object.fromEntries(Object.entries(request.settings).sort(([a], [b]) => (a < b ? -1 : 1)));
  const key = JSON.stringify([new URL(request.model, SITE).href, request.seed, sorted]);
  let found = sessions.get(key);
  if (found) {
    sessions.delete(key); // re-inserted below: most recently used last
  } else {
    found = new SearchSession(core, {
      seed: request.seed,
      cacheMb: constants.cache_mb,
      leavesPerStep: constants.leaves_per_step,
      params: request.settings,
      pvLength: constants.pv_length,
    });
    while (sessions.size >= MAX_SESSIONS) {
      const [oldest, old] = sessions.entries().next().value;
      old.free();
      sessions.delete(oldest);
    }
  }
  sessions.set(key, found);
  return found;
}

/** The game after the request's moves, as a core handle (freed by the caller). */
function gameOf(request) {
  const { core } = engine;
  const game = core.check(core.m._pc_game_new(request.komi));
  try {
    request.moves.forEach((move, i) => {
      try {
        core.check(core.m._pc_game_play(game, core.squareIndex(move)));
      } catch (error) {
        throw new RequestError(`move ${i + 1} (${move.slice(0, 20)}): ${describe(error)}`);
      }
    });
  } catch (error) {
    core.m._pc_game_free(game);
    throw error;
  }
  return game;
}

async function search(message) {
  if (!engine) throw new RequestError('the engine is not initialised: send init first');
  const request = checkedRequest(message);
  const stop = { requested: false };
  running = { id: message.id, stop }; // a stop while the network loads counts too
  let game = 0;
  try {
    const net = await network(request.model);
    const searcher = session(request);
    game = gameOf(request);
    const { analysis, move } = await searcher.search(net, game, {
      visits: request.visits,
      temperature: request.temperature,
      temperaturePlies: request.temperaturePlies,
      analysis: request.analysis,
      rootKey: `${request.komi}:${request.moves.join(' ')}`,
      reportEveryMs: request.reportEveryMs,
      onProgress: (snapshot) => post({ type: 'progress', id: message.id, analysis: snapshot }),
      shouldStop: () => stop.requested,
    });
    return { type: 'done', id: message.id, analysis, move };
  } finally {
    running = null;
    if (game) engine.core.m._pc_game_free(game);
  }
}

/** Times `repeats` network calls of `batch` positions after an untimed warm-up call (which also
 * prepares the session for that shape). The input is zeros: the network's cost does not depend on
 * the values. */
async function benchNetwork(message) {
  if (!engine) throw new RequestError('the engine is not initialised: send init first');
  const batch = checkNumber(message.batch, 'batch', { lowest: 1, highest: 1024, whole: true });
  const repeats = checkNumber(message.repeats ?? 5, 'repeats', { lowest: 1, highest: 1000, whole: true });
  if (typeof message.model !== 'string' || !message.model) throw new RequestError('model must name the network file');
  const net = await network(message.model);
  const c = engine.constants;
  const features = new Float32Array(batch * c.num_feature_planes * c.board_size * c.board_size);
  await net.evaluate(features, batch);
  const seconds = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await net.evaluate(features, batch);
    seconds.push((performance.now() - start) / 1000);
  }
  return { type: 'bench-net', seconds, threads: net.threads, backend: net.backend };
}

function newGame() {
  for (const old of sessions.values()) old.free();
  sessions.clear();
}

async function handle(message) {
  switch (message?.type) {
    case 'init':
      return init(message.constants);
    case 'search':
      return search(message);
    case 'new-game':
      return newGame();
    case 'bench-net':
      return benchNetwork(message);
    default:
      if (!message || typeof message !== 'object') throw new RequestError(`a message is an object with a type (${TYPES}), not ${quoted(message)}`);
      if (typeof message.type !== 'string') throw new RequestError(`a message needs its type (${TYPES})`);
      throw new RequestError(`unknown message type ${message.type.slice(0, 40)} (${TYPES})`);
  }
}

self.onmessage = (event) => {
  const message = event.data;
  if (message?.type === 'stop' || message?.type === 'new-game') {
    if (running) running.stop.requested = true; // a new game makes the running search moot
    if (message.type === 'stop') return;
  }
  queue = queue.then(async () => {
    try {
      const reply = await handle(message);
      if (reply) post({ id: message.id, ...reply });
    } catch (error) {
      post({ type: 'error', id: message?.id ?? null, message: describe(error) });
    }
  });
};
