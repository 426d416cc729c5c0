// quoted.js: how a bad value reads in an error message, wherever it came from.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { QUOTED_LENGTH, quoted } from '../src/quoted.js';

test('plain values as they are, cut to the quoted length', () => {
  assert.equal(quoted(12), '12');
  assert.equal(quoted('e5'), 'e5');
  assert.equal(quoted(null), 'null');
  assert.equal(quoted(Number.NaN), 'NaN');
  assert.equal(quoted('x'.repeat(100)).length, QUOTED_LENGTH);
});

test('objects and lists as JSON, never [object Object]', () => {
  assert.equal(quoted({ komi: 1 }), '{"komi":1}');
  assert.equal(quoted([1, 2]), '[1,2]');
  const cycle = {};
  cycle.self = cycle;
  assert.equal(quoted(cycle), 'an object');
  assert.equal(quoted([10n]), 'a list');
});

test('a missing value and a BigInt say what they are', () => {
  assert.equal(quoted(undefined), 'nothing');
  assert.equal(quoted(12n), '12n');
});
