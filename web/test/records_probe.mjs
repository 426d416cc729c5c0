// Reads game records for tests/web/test_records_fuzz.py, which compares the page's reader
// (records.js over the real rules, the C++ core in wasm) with popucom/gui/records.py on fuzzed
// text. argv[2]: the built site (build/web/dist). One JSON request per stdin line,
// {format: 'sgf' | 'jsonl', text}; one JSON reply per line:
//
//   {ok: true, games: [[[move, comment, analysis, children], ...preorder], ...]}
//   {ok: false, name, message}     the error the page would show (name: its class)

import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

import { fromJsonl, fromSgf } from '../src/records.js';

const site = pathToFileURL(`${resolve(process.argv[2])}/`);
const { loadRules } = await import(new URL('src/rules.js', site).href);
const rules = await loadRules(site.href, { wasmBinary: readFileSync(new URL('wasm/popucom_core.wasm', site)) });

/** The tree in preorder: what a reader must agree on. */
function shape(tree) {
  const out = [];
  const pending = [tree.root];
  while (pending.length) {
    const node = pending.pop();
    const a = node.analysis;
    out.push([node.move, node.comment, a && [a.visits, a.blackWinrate, a.blackScore], node.children.length]);
    for (let i = node.children.length - 1; i >= 0; i--) pending.push(node.children[i]);
  }
  return out;
}

function read({ format, text }) {
  try {
    if (format === 'sgf') {
      const tree = fromSgf(text, rules);
      const games = [shape(tree)];
      tree.free();
      return { ok: true, games };
    }
    return { ok: true, games: fromJsonl(text, rules).map((game) => shape(game.tree)) };
  } catch (error) {
    return { ok: false, name: error?.name ?? typeof error, message: String(error?.message ?? error) };
  }
}

for await (const line of createInterface({ input: process.stdin, crlfDelay: Infinity })) {
  process.stdout.write(`${JSON.stringify(read(JSON.parse(line)))}\n`);
}
