import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { pickLanguage, STRINGS, translate, translateReason } from '../src/i18n.js';
import { levelDescription, levelEntry, readLevels } from '../src/levels.js';

test('both languages have the same keys and the same parameters', () => {
  const en = STRINGS.en;
  const zh = STRINGS['zh-CN'];
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  const params = (text) => (text.match(/\{\w+\}/g) ?? []).sort();
  for (const key of Object.keys(en)) assert.deepEqual(params(zh[key]), params(en[key]), key);
});

test('every data-i18n key of the page has a text', () => {
  const html = readFileSync(new URL('../index.html', import.meta.url), 'utf8');
  const keys = [...html.matchAll(/data-i18n(?:-title|-placeholder|-aria)?="([^"]+)"/g)].map((m) => m[1]);
  assert.ok(keys.length > 20);
  keys.forEach((key) => assert.ok(key in STRINGS.en, `missing text for ${key}`));
});

test('the browser language picks the page language', () => {
  assert.equal(pickLanguage(['zh-TW', 'en']), 'zh-CN');
  assert.equal(pickLanguage(['fr-FR', 'en-GB']), 'en');
  assert.equal(pickLanguage(['fr-FR']), 'en');
});

test('the rules reasons are translated, naming whose floor a square is', () => {
  assert.equal(translateReason('en', "e5 is painted in the opponent's colour", 'black'), "e5 is on White's floor");
  assert.equal(translateReason('zh-CN', 'e5 already holds a stone'), 'e5 已有棋子');
  assert.equal(translate('zh-CN', 'illegal', { square: 'e5', reason: "e5 is painted in the opponent's colour", mover: 'white' }), '不能下 e5：e5 是黑方的染色格');
});

test('levels come from levels.json, named in the page language', () => {
  const levels = readLevels([
    { name: 'beginner', rating: 811, description: 'the first shipped model', model: 'models/a.onnx', visits: 8, params: { endgame_solve_plies: 0 }, temperature: 1, temperature_plies: 50 },
    { name: 'someday', rating: 3000, description: 'a level without texts', model: 'models/b.onnx', visits: 100, params: {} },
  ]);
  assert.deepEqual(levels[0].params, { endgame_solve_plies: 0, visits: 8 });
  assert.equal(levels[0].temperaturePlies, 50);
  assert.equal(levelEntry(levels[0], 'zh-CN'), '入门（等级分 811）');
  assert.equal(levelDescription(levels[0], 'en'), 'the first shipped model');
  assert.match(levelDescription(levels[0], 'zh-CN'), /早期模型/);
  assert.equal(levelEntry(levels[1], 'zh-CN'), 'someday（等级分 3000）');
  assert.throws(() => readLevels([]), /no levels/);
});
