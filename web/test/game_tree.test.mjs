import assert from 'node:assert/strict';
import { test } from 'node:test';

import { GameTree } from '../src/game_tree.js';
import { fakeRules } from './fake_rules.mjs';

function tree(moves = []) {
  const t = new GameTree(fakeRules, 0);
  moves.forEach((m) => t.play(m));
  return t;
}

test('playing adds nodes and replays the position', () => {
  const t = tree(['e5', 'd4', 'c3']);
  assert.deepEqual(t.current.moves(), ['e5', 'd4', 'c3']);
  assert.equal(t.current.colour, 'black');
  assert.equal(t.game.toMove, 'white');
  assert.equal(t.current.depth, 3);
});

test('a different move at an earlier node makes a variation; replaying a move reuses it', () => {
  const t = tree(['e5', 'd4', 'c3']);
  t.back();
  t.back();
  t.play('a1');
  assert.equal(t.root.children[0].children.length, 2);
  assert.ok(t.current.isVariationHead);
  t.back();
  t.play('d4');
  assert.equal(t.current, t.root.children[0].children[0]);
  assert.equal(t.root.children[0].children.length, 2);
});

test('back, forward, variations and jumps keep the game in step', () => {
  const t = tree(['e5', 'd4', 'c3']);
  t.back();
  t.back();
  t.play('a1');
  t.play('b2');
  assert.deepEqual(t.game.moves, ['e5', 'a1', 'b2']);
  t.back();
  assert.equal(t.sibling(-1), true);
  assert.equal(t.current.move, 'd4');
  assert.deepEqual(t.game.moves, ['e5', 'd4']);
  assert.equal(t.sibling(-1), false);
  assert.equal(t.sibling(+1), true);
  assert.equal(t.current.move, 'a1');
  t.toEnd();
  assert.deepEqual(t.game.moves, ['e5', 'a1', 'b2']);
  t.toStart();
  assert.equal(t.back(), false);
  assert.equal(t.forward(), true);
  t.toEnd();
  assert.deepEqual(t.game.moves, ['e5', 'd4', 'c3']);
  t.goTo(t.root.children[0].children[1].children[0]);
  assert.deepEqual(t.game.moves, ['e5', 'a1', 'b2']);
});

test('an illegal move throws the reason and leaves the tree as it was', () => {
  const t = tree(['e5']);
  assert.throws(() => t.play('e5'), /e5 already holds a stone/);
  assert.equal(t.current.move, 'e5');
  assert.equal(t.current.children.length, 0);
  assert.deepEqual(t.game.moves, ['e5']);
});

test('promote and delete edit the lines as the Qt GUI does', () => {
  const t = tree(['e5', 'd4']);
  t.back();
  t.play('a1');
  const variation = t.current;
  t.promote(variation);
  assert.equal(t.root.children[0].children[0], variation);
  assert.deepEqual(t.mainLine().map((n) => n.move), [null, 'e5', 'a1']);
  t.delete(variation);
  assert.equal(t.current.move, 'e5');
  assert.deepEqual(t.mainLine().map((n) => n.move), [null, 'e5', 'd4']);
  assert.throws(() => t.delete(t.root), /cannot be deleted/);
});

test('nodes lists depth first in child order; a node of another tree is refused', () => {
  const t = tree(['e5', 'd4']);
  t.back();
  t.play('a1');
  assert.deepEqual(t.nodes().map((n) => n.move), [null, 'e5', 'd4', 'a1']);
  assert.throws(() => t.goTo(tree(['e5']).current), /not in this game tree/);
});

test('fromMoves builds a line and ends at the root', () => {
  const t = GameTree.fromMoves(fakeRules, ['e5', 'd4'], 3, { PB: 'x' });
  assert.equal(t.current, t.root);
  assert.equal(t.komi, 3);
  assert.equal(t.properties.PB, 'x');
  assert.deepEqual(t.currentLine().map((n) => n.move), [null, 'e5', 'd4']);
});
