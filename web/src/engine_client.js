// The page's side of the engine worker (engine_worker.js): promises for its replies.
//
//   const engine = await EngineClient.start(siteUrl, constants);   // resolves on `ready`
//   const { analysis, move } = await engine.search(request, (analysis) => show(analysis));
//   engine.stop();  engine.newGame();
//
// `request` is the worker's search message without type and id. A search that fails rejects
// with an Error carrying the worker's message; if the worker itself dies, every pending search
// rejects.

export class EngineClient {
  /** Starts the worker under `siteUrl` and waits until it is ready (threads, backend). */
  static async start(siteUrl, constants) {
    const worker = new Worker(new URL('src/engine_worker.js', siteUrl), { type: 'module' });
    const client = new EngineClient(worker);
    client.info = await client.request({ type: 'init', constants });
    return client;
  }

  constructor(worker) {
    this.worker = worker;
    this.nextId = 1;
    this.pending = new Map(); // id -> {resolve, reject, onProgress}
    this.info = null;
    worker.addEventListener('message', (event) => this.receive(event.data));
    worker.addEventListener('error', (event) => this.failAll(event.message || 'the engine worker failed'));
  }

  request(message, onProgress = null) {
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.pending.set(id, { resolve, reject, onProgress });
      this.worker.postMessage({ ...message, id });
    });
  }

  receive(message) {
    const job = this.pending.get(message?.id);
    if (!job) return;
    if (message.type === 'progress') {
      job.onProgress?.(message.analysis);
      return;
    }
    this.pending.delete(message.id);
    if (message.type === 'error') job.reject(new Error(message.message));
    else if (message.type === 'done') job.resolve({ analysis: message.analysis, move: message.move });
    else job.resolve(message); // ready
  }

  failAll(reason) {
    for (const job of this.pending.values()) job.reject(new Error(reason));
    this.pending.clear();
  }

  /** Searches; resolves with {analysis, move} (see the worker protocol). */
  search(request, onProgress = null) {
    return this.request({ ...request, type: 'search' }, onProgress);
  }

  /** The running search moves now: it ends after its current network call and resolves. */
  stop() {
    this.worker.postMessage({ type: 'stop' });
  }

  /** Forgets the trees and caches (a new game starts fresh, as a new engine would). */
  newGame() {
    this.worker.postMessage({ type: 'new-game' });
  }

  terminate() {
    this.worker.terminate();
    this.failAll('the engine was shut down');
  }
}
