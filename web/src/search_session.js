// One game's search in the core (csrc/search through web_api.cpp), driven the way
// popucom/search/game_search.py's GameSearch drives it for `popucom engine`: the tree kept
// while the position stays its root or one move below it (the session plays its own move in), gather -> network -> backup until
// the visit target, the network's root W/D/L from one batch-1 call per search, and the move to
// play chosen as popucom.player.Player chooses it. Same seed, settings and network: same moves.
//
// The network is any object with `async evaluate(features, n)` returning Float32Arrays
// {policy [n*81], wdl [n*3], score [n], valueError [n] | null}, features being n positions of
// [planes][9][9] float32 (network.js wraps onnxruntime-web). Not re-entrant: one search at a time.

import { CoreError } from './core.js';

const SQUARES = 81;

// A macrotask boundary without setTimeout's clamping: messages that arrived (stop) are seen.
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => {
  if (waiting.length === 1) channel.port1.unref?.(); // node: an idle port must not keep the process alive
  waiting.shift()();
};
channel.port1.unref?.();
function nextTask() {
  return new Promise((resolve) => {
    waiting.push(resolve);
    channel.port1.ref?.();
    channel.port2.postMessage(0);
  });
}

export class SearchSession {
  /**
   * core: a Core (core.js); seed, cacheMb, leavesPerStep: as `popucom engine` (constants.json);
   * params: SearchParams overrides by name (any field; bad names or values throw).
   */
  constructor(core, { seed, cacheMb, leavesPerStep, params = {}, pvLength = 10 }) {
    this.core = core;
    this.m = core.m;
    this.pvLength = pvLength;
    this.handle = core.check(this.m._pc_search_new(seed, cacheMb));
    this.buffers = null;
    this.rootWdl = { key: null, wdl: null };
    try {
      this.setParam('leaves_per_game', leavesPerStep);
      for (const [name, value] of Object.entries(params)) this.setParam(name, value);
    } catch (error) {
      this.free();
      throw error;
    }
  }

  setParam(name, value) {
    const number = typeof value === 'boolean' ? Number(value) : value;
    if (typeof number !== 'number') throw new CoreError(`search setting ${name} wants a number, got ${typeof value}`);
    this.core.check(this.core.withString(String(name), (p) => this.m._pc_search_set_param(this.handle, p, number)));
  }

  /**
   * Makes the game (a rules.js Game, or a core game handle) the root: 'kept', 'advanced' (one
   * move below the old root, its subtree kept) or 'reset', as GameSearch.set_position.
   */
  setPosition(gameHandle) {
    return ['kept', 'advanced', 'reset'][this.core.check(this.m._pc_search_set_position(this.handle, gameHandle))];
  }

  /** Drops the tree (a fresh one at the same root); the evaluation cache stays. */
  resetTree(gameHandle) {
    this.core.check(this.m._pc_search_reset(this.handle, gameHandle));
  }

  allocate(maxBatch) {
    const planes = this.m._pc_feature_planes();
    const floats = (n) => this.m._malloc(4 * n);
    this.buffers = {
      maxBatch,
      planes,
      features: floats(maxBatch * planes * SQUARES),
      policy: floats(maxBatch * SQUARES),
      wdl: floats(maxBatch * 3),
      score: floats(maxBatch),
      valueError: floats(maxBatch),
    };
  }

  /** One gather -> evaluate -> backup round; returns the positions evaluated. */
  async step(network) {
    const maxBatch = this.core.check(this.m._pc_search_max_batch(this.handle));
    if (!this.buffers || this.buffers.maxBatch < maxBatch) this.allocate(maxBatch);
    const b = this.buffers;
    const n = this.core.check(this.m._pc_search_gather(this.handle, b.features, b.maxBatch));
    if (n === 0) return 0;
    let out;
    try {
      const size = n * b.planes * SQUARES;
      out = await network.evaluate(new Float32Array(this.m.HEAPF32.buffer, b.features, size).slice(), n);
    } catch (error) {
      this.m._pc_search_cancel(this.handle);
      throw error;
    }
    const heap = this.m.HEAPF32; // after the await: the memory may have grown meanwhile
    heap.set(out.policy.subarray(0, n * SQUARES), b.policy / 4);
    heap.set(out.wdl.subarray(0, n * 3), b.wdl / 4);
    heap.set(out.score.subarray(0, n), b.score / 4);
    if (out.valueError) heap.set(out.valueError.subarray(0, n), b.valueError / 4);
    this.core.check(
      this.m._pc_search_backup(this.handle, b.policy, b.wdl, b.score, out.valueError ? b.valueError : 0, n),
    );
    return n;
  }

  /** The network's [win, draw, loss] at the root (side to move), one call per root. */
  async rootEvaluation(network, key) {
    if (this.rootWdl.key !== key) {
      const planes = this.m._pc_feature_planes();
      const pointer = this.m._malloc(4 * planes * SQUARES);
      let features;
      try {
        this.core.check(this.m._pc_search_root_features(this.handle, pointer));
        features = new Float32Array(this.m.HEAPF32.buffer, pointer, planes * SQUARES).slice();
      } finally {
        this.m._free(pointer);
      }
      const out = await network.evaluate(features, 1);
      this.rootWdl = { key, wdl: Array.from(out.wdl.subarray(0, 3)) };
    }
    return this.rootWdl.wdl;
  }

  /** popucom/search/analysis.py's snapshot (see web_api.cpp), parsed. */
  snapshot(withChosen) {
    const text = this.m._pc_search_snapshot(this.handle, this.pvLength, withChosen ? 1 : 0);
    if (!text) throw new CoreError(this.m.UTF8ToString(this.m._pc_last_error()));
    return JSON.parse(this.m.UTF8ToString(text));
  }

  /**
   * Searches the game (its handle in this core) until the root has `visits` or shouldStop()
   * says so between network calls (after the first), then picks the move. temperature
   * applies to plies below temperaturePlies (Player.move_temperature); analysis: the
   * search's choice, no sampling.
   * onProgress(analysis) gets a snapshot after the first batch and every reportEveryMs.
   */
  async search(network, gameHandle, request) {
    const { visits, temperature = 0, temperaturePlies = 0, analysis = false, rootKey } = request;
    const { reportEveryMs = 200, onProgress = null, shouldStop = () => false } = request;
    const started = performance.now();
    if (this.m._pc_game_over(gameHandle) === 1) throw new CoreError('the game is over: there is nothing to search');
    this.setPosition(gameHandle);
    this.core.check(this.m._pc_search_set_visits(this.handle, visits));
    const wdl = await this.rootEvaluation(network, rootKey);
    const seconds = () => (performance.now() - started) / 1000;
    const report = (withChosen) => ({ ...this.snapshot(withChosen), wdl, seconds: seconds() });
    let lastReport = null;
    let steps = 0;
    while (!this.core.check(this.m._pc_search_done(this.handle))) {
      await nextTask();
      if (steps > 0 && shouldStop()) break; // "move now" still gets one batch: never a blind move
      await this.step(network);
      steps += 1;
      const now = performance.now();
      if (onProgress && (lastReport === null || now - lastReport >= reportEveryMs)) {
        lastReport = now;
        onProgress(report(analysis)); // a game move's endgame solve waits for the final snapshot
      }
    }
    const final = report(true);
    const ply = this.m._pc_game_ply(gameHandle);
    const sampling = !analysis && temperature > 0 && ply < temperaturePlies;
    const square = sampling
      ? this.core.check(this.m._pc_search_choose(this.handle, temperature))
      : final.chosen !== null
        ? null
        : this.core.check(this.m._pc_search_choose(this.handle, 0));
    const move = square === null ? final.chosen : this.core.squareName(square);
    // The session is told its own move, as the engine tells its session every move: the
    // opponent's reply is then one move below the root and its subtree is kept.
    if (!analysis) this.core.check(this.m._pc_search_play(this.handle, this.core.squareIndex(move)));
    return { analysis: final, move };
  }

  free() {
    if (this.buffers) {
      for (const key of ['features', 'policy', 'wdl', 'score', 'valueError']) this.m._free(this.buffers[key]);
      this.buffers = null;
    }
    if (this.handle) this.m._pc_search_free(this.handle);
    this.handle = 0;
  }
}
