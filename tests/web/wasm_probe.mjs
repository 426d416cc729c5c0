// Drives the built wasm core in node for tests/web/test_wasm_build.py: reads one JSON request
// on stdin, writes one JSON reply on stdout. argv[2]: a folder holding the site's src/ and wasm/
// (a copy marked "type": "module").
//
//   {mode:'rules', komi, games:[[square, ...], ...]}  -> per game, the state after every move
//   {mode:'errors'}                                   -> the error messages of bad calls
//   {mode:'search', visits, moves, ort?, model?}      -> a search on a fake network (or the real
//                                                        one through onnxruntime-web when `ort`
//                                                        and `model` are given), and its move

import { readFileSync } from 'node:fs';

import { loadCore } from './src/core.js';
import { loadRules } from './src/rules.js';
import { Network } from './src/network.js';
import { SearchSession } from './src/search_session.js';

const site = new URL(`file://${process.argv[2]}/`);
const moduleOptions = { wasmBinary: readFileSync(new URL('wasm/popucom_core.wasm', site)) };
const request = JSON.parse(readFileSync(0, 'utf8'));

function state(game) {
  return {
    legal: [...game.legalMoves()].sort(),
    cells: game.cells().map((c) => [c.stone, c.floor]),
    toMove: game.toMove,
    ply: game.ply,
    over: game.over,
    result: game.result,
    endReason: game.endReason,
    score: game.score,
    komi: game.komi,
    movesLeft: game.movesLeft,
  };
}

async function rules() {
  const r = await loadRules(site.href, moduleOptions);
  return request.games.map((moves) => {
    const game = r.newGame(request.komi);
    const states = [state(game)];
    for (const move of moves) {
      game.play(move);
      states.push(state(game));
    }
    game.free();
    return states;
  });
}

function caught(fn) {
  try {
    fn();
    return null;
  } catch (error) {
    return `${error.constructor.name}: ${error.message}`;
  }
}

// A network that knows nothing: uniform policy, even W/D/L; `poison` makes its answer NaN.
class FakeNetwork {
  constructor() {
    this.poison = false;
  }
  async evaluate(features, n) {
    const policy = new Float32Array(n * 81).fill(this.poison ? NaN : 0);
    return { policy, wdl: new Float32Array(n * 3).fill(1 / 3), score: new Float32Array(n), valueError: null };
  }
}

async function errors() {
  const r = await loadRules(site.href, moduleOptions);
  const core = r.core;
  const game = r.newGame(0);
  game.play('e5');
  const session = new SearchSession(core, { seed: 0, cacheMb: 1, leavesPerStep: 16 });
  const network = new FakeNetwork();
  const out = {
    occupied: caught(() => game.play('e5')),
    unreadable: caught(() => game.play('j1')),
    notText: caught(() => game.play(40)),
    komi: caught(() => r.newGame(0.5)),
    unknownParam: caught(() => session.setParam('c_pucx', 1)),
    paramRange: caught(() => session.setParam('c_puct', -1)),
    paramWhole: caught(() => session.setParam('leaves_per_game', 2.5)),
    paramNaN: caught(() => session.setParam('virtual_loss', NaN)),
    badSeed: caught(() => new SearchSession(core, { seed: -1, cacheMb: 1, leavesPerStep: 16 })),
    badHandle: caught(() => core.check(core.m._pc_game_play(9999, 0))),
    undoEmpty: caught(() => r.newGame(0).undo()),
    negativeScore: null,
  };
  const white = r.gameFromMoves(['a1', 'c3', 'i9', 'c4', 'a9', 'c5']); // White's three in a row paints
  out.negativeScore = white.score;
  out.negativeKomi = r.newGame(-7).komi;
  network.poison = true;
  out.poisoned = await session.search(network, game.handle, { visits: 32, rootKey: 'x' }).then(
    () => null,
    (error) => `${error.constructor.name}: ${error.message}`,
  );
  network.poison = false;
  const after = await session.search(network, game.handle, { visits: 32, rootKey: 'x' });
  out.afterPoison = { visits: after.analysis.visits, move: after.move, legal: game.legalMoves().has(after.move) };
  session.free();
  return out;
}

async function search() {
  const core = await loadCore(site.href, moduleOptions);
  let network = new FakeNetwork();
  if (request.ort) {
    const ort = await import(request.ort);
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    network = await Network.load(ort, readFileSync(request.model), 12, 9);
  }
  const session = new SearchSession(core, { seed: request.seed ?? 0, cacheMb: request.cacheMb ?? 64, leavesPerStep: 16 });
  const game = core.check(core.m._pc_game_new(0));
  const moves = [];
  const progress = [];
  const started = performance.now();
  for (let ply = 0; ply < request.plies; ply++) {
    const result = await session.search(network, game, {
      visits: request.visits,
      rootKey: moves.join(' '),
      reportEveryMs: 0,
      onProgress: (analysis) => progress.push(analysis.visits),
    });
    moves.push(result.move);
    core.check(core.m._pc_game_play(game, core.squareIndex(result.move)));
    if (core.m._pc_game_over(game)) break;
  }
  return { moves, progress, seconds: (performance.now() - started) / 1000 };
}

const modes = { rules, errors, search };
process.stdout.write(JSON.stringify(await modes[request.mode]()));
