// An ONNX model on onnxruntime-web's wasm backend (the shipped networks run as network files on
// the core's own forward, native_network.js), behind the
// `evaluate(features, n)` the search session calls. The model's contract (popucom/infer/
// contract.py): input `features` [N,12,9,9] float32; outputs `policy_logits` [N,81], `wdl`
// [N,3] probabilities, `score` [N] and, in newer models, `value_error` [N]; `ownership` is not
// fetched. Threads: where the page is cross-origin isolated, one per core but one (the page's
// own thread keeps a core), at most 4; else one: a pool thread that must share its core with the
// page waits on the others at every one of this small network's many tiny operators.

const INPUT = 'features';
const OUTPUTS = ['policy_logits', 'wdl', 'score'];
const OPTIONAL_OUTPUT = 'value_error';
const MAX_THREADS = 4;

/** The thread count onnxruntime-web may use here. */
export function networkThreads() {
  const isolated = globalThis.crossOriginIsolated === true;
  const cores = globalThis.navigator?.hardwareConcurrency ?? 1;
  return isolated ? Math.max(1, Math.min(MAX_THREADS, cores - 1)) : 1;
}

/** Sets onnxruntime-web up once, before it creates any InferenceSession: where its wasm lies, threads. */
export function configureRuntime(ort, ortFolderUrl, threads = networkThreads()) {
  ort.env.wasm.wasmPaths = ortFolderUrl;
  ort.env.wasm.numThreads = threads;
  ort.env.wasm.proxy = false; // the engine already runs in a worker
  ort.env.logLevel = 'error'; // not the optimizer's notes on every session
  return threads;
}

export class Network {
  /** `model`: the .onnx file's URL, or its bytes (Uint8Array). */
  /** `planes`, `boardSize`: the input's shape per position (constants.json). */
  /** `name`: what errors call the network (its file). */
  static async load(ort, model, planes, boardSize, name = 'the network') {
    const session = await ort.InferenceSession.create(model, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
      logSeverityLevel: 3, // errors only
    });
    if (!session.inputNames.includes(INPUT)) throw new Error(`the model has no input named ${INPUT}`);
    const missing = OUTPUTS.filter((name) => !session.outputNames.includes(name));
    if (missing.length) throw new Error(`the model lacks the outputs ${missing.join(', ')}`);
    return new Network(ort, session, planes, boardSize, name);
  }

  constructor(ort, session, planes, boardSize, name = 'the network') {
    this.name = name;
    this.ort = ort;
    this.session = session;
    this.shape = [planes, boardSize, boardSize];
    this.fetches = session.outputNames.includes(OPTIONAL_OUTPUT) ? [...OUTPUTS, OPTIONAL_OUTPUT] : OUTPUTS;
    this.calls = 0;
    this.positions = 0;
  }

  async evaluate(features, n) {
    const input = new this.ort.Tensor('float32', features, [n, ...this.shape]);
    let out;
    try {
      out = await this.session.run({ [INPUT]: input }, this.fetches);
    } catch (error) {
      // A model that loads can still refuse our input (a fixed batch, another dtype).
      throw new Error(`${this.name} failed on ${n} positions: ${String(error?.message ?? error).slice(0, 500)}`);
    }
    this.calls += 1;
    this.positions += n;
    return {
      policy: out.policy_logits.data,
      wdl: out.wdl.data,
      score: out.score.data,
      valueError: out[OPTIONAL_OUTPUT]?.data ?? null,
    };
  }

  release() {
    return this.session.release();
  }
}
