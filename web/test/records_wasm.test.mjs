// records.js and game_tree.js over the real rules (the C++ core in wasm, rules.js), where a
// build exists (`popucom web build`); skipped with the reason otherwise.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { GameTree } from '../src/game_tree.js';
import { fromJsonl, fromSgf, toJsonl, toSgf } from '../src/records.js';

const DIST = new URL('../../build/web/dist/', import.meta.url);
const WASM = new URL('wasm/popucom_core.wasm', DIST);
const skip = existsSync(WASM) ? false : `no wasm build at ${WASM.pathname}: run \`popucom web build\``;

// A whole game (matches, painting, White winning), as the engine's records write it.
const GAME = 'c3 c6 d3 f3 a5 f1 f4 g7 f2 e4 g6 d7 a1 c7 e7 h1 c4 a3 d5 b9 h6 g5 e5 g1 f7 g9 g3 e9 f6 h8 g4 h1 c9 b6 e6 c1 d6 b8 b7 c5 i8 b1 c2 h5 d8 f5 i1 b4 f9 b2';

async function realRules() {
  const { loadRules } = await import(new URL('src/rules.js', DIST).href);
  return loadRules(DIST.href, { wasmBinary: readFileSync(WASM) });
}

test('a whole game round-trips through JSONL and SGF with the real rules', { skip }, async () => {
  const rules = await realRules();
  const [game] = fromJsonl(`{"moves": "${GAME}", "komi": 0, "result": "white", "score": 0, "end": "moves_exhausted", "black": "a", "white": "b"}\n`, rules);
  game.tree.toEnd();
  assert.equal(game.tree.game.over, true);
  const record = JSON.parse(toJsonl(game.tree));
  assert.equal(record.moves, GAME);
  assert.equal(record.end, 'moves_exhausted');
  assert.equal(record.result, game.tree.game.result);
  const again = fromSgf(toSgf(game.tree), rules);
  assert.deepEqual(again.mainLine().slice(1).map((n) => n.move), GAME.split(' '));
});

test('an illegal move in a file names the node and the rules reason', { skip }, async () => {
  const rules = await realRules();
  // d5, f5 then e5 make a row for Black: e5 is painted Black's, so White cannot play there.
  assert.throws(() => fromSgf('(;GM[81];B[d5];W[a1];B[f5];W[a2];B[e5];W[e5])', rules), /SGF node 7: W\[e5\]: illegal move: e5 is on Black's floor/);
  const tree = new GameTree(rules, 0);
  ['d5', 'a1', 'f5', 'a2', 'e5'].forEach((m) => tree.play(m));
  assert.equal(tree.game.cells()[40].floor, 'black');
  assert.throws(() => tree.play('e5'), /painted in the opponent's colour/);
  assert.equal(tree.current.move, 'e5');
  tree.free();
});
