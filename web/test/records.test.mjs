import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GameTree } from '../src/game_tree.js';
import { translate } from '../src/i18n.js';
import { fromJsonl, fromSgf, MAX_RECORD_BYTES, readRecord, RecordError, toJsonl, toSgf } from '../src/records.js';
import { fakeRules } from './fake_rules.mjs';

// The example of docs/data_formats.md, as popucom/gui/records.py writes it.
const DOC_EXAMPLE = `(;GM[81]FF[4]CA[UTF-8]AP[popucom:0.1.0]SZ[9]KM[0]PB[you]PW[uct:2000]C[a comment on the start]
 ;B[e5];W[d4]C[why d4]ZA[800:0.4630:-1.20]
 (;B[c3];W[f6])
 (;B[a1]))`;

const refused = (fn, pattern) =>
  assert.throws(fn, (error) => {
    assert.ok(error instanceof RecordError, `a RecordError, got ${error}`);
    assert.match(error.message, pattern);
    return true;
  });

test('reads the documented SGF: info, comments, analysis and variations', () => {
  const tree = fromSgf(DOC_EXAMPLE, fakeRules);
  assert.deepEqual(tree.properties, { PB: 'you', PW: 'uct:2000' });
  assert.equal(tree.root.comment, 'a comment on the start');
  const d4 = tree.root.children[0].children[0];
  assert.equal(d4.move, 'd4');
  assert.equal(d4.comment, 'why d4');
  assert.deepEqual(d4.analysis, { visits: 800, blackWinrate: 0.463, blackScore: -1.2 });
  assert.deepEqual(d4.children.map((n) => n.move), ['c3', 'a1']);
  assert.deepEqual(tree.mainLine().map((n) => n.move), [null, 'e5', 'd4', 'c3', 'f6']);
  assert.equal(tree.current, tree.root);
});

test('writes SGF as records.py does and reads it back unchanged', () => {
  const tree = fromSgf(DOC_EXAMPLE, fakeRules);
  tree.root.children[0].comment = 'brackets ] and \\ backslashes';
  const text = toSgf(tree, { version: '0.1.0' });
  assert.equal(
    text,
    '(;GM[81]FF[4]CA[UTF-8]AP[popucom:0.1.0]SZ[9]KM[0]PB[you]PW[uct:2000]C[a comment on the start]' +
      ';B[e5]C[brackets \\] and \\\\ backslashes];W[d4]C[why d4]ZA[800:0.4630:-1.20]\n(;B[c3];W[f6])\n(;B[a1]))\n',
  );
  const again = fromSgf(text, fakeRules);
  assert.equal(toSgf(again, { version: '0.1.0' }), text);
  assert.equal(again.root.children[0].comment, 'brackets ] and \\ backslashes');
});

test('a variation at the root and komi survive a round trip', () => {
  const tree = new GameTree(fakeRules, -3);
  tree.play('e5');
  tree.toStart();
  tree.play('a1');
  const text = toSgf(tree);
  assert.match(text, /KM\[-3\]\n\(;B\[e5\]\)\n\(;B\[a1\]\)\)/);
  const again = fromSgf(text, fakeRules);
  assert.equal(again.komi, -3);
  assert.deepEqual(again.root.children.map((n) => n.move), ['e5', 'a1']);
});

test('hostile or damaged SGF is refused naming the problem', () => {
  refused(() => fromSgf('(;GM[1]SZ[19];B[pd])', fakeRules), /GM\[1\] is another game/);
  refused(() => fromSgf('(;GM[81]SZ[19])', fakeRules), /SZ\[19\]: the board is 9x9/);
  refused(() => fromSgf('(;GM[81]KM[2.5])', fakeRules), /komi must be a whole number/);
  refused(() => fromSgf('(;GM[81];B[e5];W[d4];B[e5])', fakeRules), /node 4: B\[e5\]: illegal move: e5 already holds a stone/);
  refused(() => fromSgf('(;GM[81];B[i9])', fakeRules), /node 2: B\[i9\]: illegal move: i9 is on White's floor/);
  refused(() => fromSgf('(;GM[81];W[e5])', fakeRules), /node 2: W\[e5\] but it is Black's turn/);
  refused(() => fromSgf('(;GM[81];B[z9])', fakeRules), /node 2: B\[z9\]: illegal move: cannot read move/);
  refused(() => fromSgf('(;GM[81];B[e5]W[d4])', fakeRules), /node 2: more than one move/);
  refused(() => fromSgf('(;GM[81];B[e5]', fakeRules), /SGF line 1: expected '\)', found EOF/);
  refused(() => fromSgf('(;GM[81];B[e5', fakeRules), /not closed with '\]'/);
  refused(() => fromSgf('(;GM[81]) trailing', fakeRules), /unexpected text after the game/);
  refused(() => fromSgf('(;GM[81];b[e5])', fakeRules), /property 'b' must be upper case/);
  refused(() => fromSgf('(;GM[81];B[e5]ZA[1:2:3])', fakeRules), /node 2: ZA\[1:2:3\] is out of range/);
  refused(() => fromSgf('(;GM[81];B[e5]ZA[nan:x])', fakeRules), /ZA\[nan:x\] is not visits:winrate:score/);
  refused(() => fromSgf('hello', fakeRules), /expected '\('/);
  refused(() => fromSgf('', fakeRules), /expected '\(', found EOF/);
});

test('deep nesting and huge files are refused without exhausting the page', () => {
  const deep = '(;GM[81]' + '(;C[x]'.repeat(100000) + ')'.repeat(100001);
  refused(() => fromSgf(deep, fakeRules), /nested deeper than 500/);
  const huge = '(;GM[81]C[' + 'x'.repeat(MAX_RECORD_BYTES) + '])';
  refused(() => fromSgf(huge, fakeRules), /larger than 4 MB/);
  refused(() => readRecord(huge, 'big.jsonl', fakeRules), /larger than 4 MB/);
});

test('JSONL records read as records.py reads them', () => {
  const text =
    '{"moves": "e5 d4 c3", "komi": 0, "result": "black", "score": 3, "end": "moves_exhausted", "black": "a", "white": "b"}\n' +
    '\n{"moves": [40, "d4"], "komi": 2}\n';
  const games = fromJsonl(text, fakeRules);
  assert.equal(games.length, 2);
  assert.deepEqual(games[0].info, { PB: 'a', PW: 'b', RE: 'B+3' });
  assert.equal(games[0].moves, 3);
  assert.deepEqual(games[0].tree.mainLine().map((n) => n.move), [null, 'e5', 'd4', 'c3']);
  assert.deepEqual(games[1].tree.mainLine().map((n) => n.move), [null, 'e5', 'd4']);
  assert.equal(games[1].tree.komi, 2);
});

test('bad JSONL is refused naming the line and the field', () => {
  refused(() => fromJsonl('{"moves": "e5 e5"}', fakeRules), /line 1: not a game record \(move 2 \(e5\): illegal move: e5 already holds a stone\)/);
  refused(() => fromJsonl('\n[1,2]', fakeRules), /line 2: .*JSON object, not array/);
  refused(() => fromJsonl('{"komi": 0}', fakeRules), /no "moves" field/);
  refused(() => fromJsonl('{"moves": "e5", "result": "blue"}', fakeRules), /result blue is not one of/);
  refused(() => fromJsonl('{"moves": [true]}', fakeRules), /move 1 is true, not a square/);
  refused(() => fromJsonl('{"moves": "e5", "komi": 1e9}', fakeRules), /komi must be a whole number/);
  refused(() => fromJsonl('not json', fakeRules), /not JSON/);
  refused(() => fromJsonl('\n \n', fakeRules), /no game records/);
});

test('errors translate to Chinese by their key', () => {
  try {
    fromSgf('(;GM[81];B[e5];W[e5])', fakeRules);
    assert.fail('accepted');
  } catch (error) {
    const zh = translate('zh-CN', error.key, error.params);
    assert.match(zh, /SGF 第 3 个节点：W\[e5\]：非法着法：e5 已有棋子/);
  }
});

test('writes the line through the current node as one JSONL record', () => {
  const tree = GameTree.fromMoves(fakeRules, ['e5', 'd4'], 1, { PB: 'you', PW: 'strongest' });
  tree.toEnd();
  const record = JSON.parse(toJsonl(tree));
  assert.deepEqual(record, { moves: 'e5 d4', komi: 1, black: 'you', white: 'strongest' });
  const full = GameTree.fromMoves(fakeRules, Array.from({ length: 50 }, (_, i) => fakeRules.squareName(i)), 1);
  const ended = JSON.parse(toJsonl(full));
  assert.equal(ended.result, 'black');
  assert.equal(ended.end, 'moves_exhausted');
  const back = readRecord(toJsonl(full), 'game.jsonl', fakeRules);
  assert.equal(back[0].moves, 50);
});
