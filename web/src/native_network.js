// A network file (models/<version>.pcnet, csrc/nn/native_net_file.h) on the core's own forward:
// the native forward's portable kernels built for wasm SIMD128, inside the same module as the
// search, one thread. The page's shipped networks run here; an ONNX model goes to
// onnxruntime-web (network.js). Same `evaluate(features, n)` as network.js.

const SQUARES = 81;
const WDL = 3;

export class NativeNetwork {
  /** `core`: the worker's Core (core.js); `bytes`: the file (Uint8Array); `name`: what errors call it. */
  static load(core, bytes, name = 'the network') {
    const m = core.m;
    const pointer = m._malloc(Math.max(1, bytes.length));
    let handle;
    try {
      m.HEAPU8.set(bytes, pointer);
      handle = m._pc_net_load(pointer, bytes.length);
    } finally {
      m._free(pointer);
    }
    if (handle < 0) throw new Error(m.UTF8ToString(m._pc_last_error()));
    return new NativeNetwork(core, handle, name);
  }

  constructor(core, handle, name) {
    this.core = core;
    this.handle = handle;
    this.name = name;
    this.planes = core.m._pc_feature_planes();
    this.hasValueError = core.check(core.m._pc_net_has_value_error(handle)) === 1;
    this.buffers = null;
    this.calls = 0;
    this.positions = 0;
  }

  /** Room in the module's memory for a batch of `n`, kept and grown as needed. */
  room(n) {
    if (this.buffers && this.buffers.capacity >= n) return this.buffers;
    this.freeBuffers();
    const floats = (count) => this.core.m._malloc(4 * count);
    this.buffers = {
      capacity: n,
      features: floats(n * this.planes * SQUARES),
      policy: floats(n * SQUARES),
      wdl: floats(n * WDL),
      score: floats(n),
      ownership: floats(n * SQUARES),
      valueError: floats(n),
    };
    return this.buffers;
  }

  async evaluate(features, n) {
    const m = this.core.m;
    const b = this.room(n);
    m.HEAPF32.set(features.subarray(0, n * this.planes * SQUARES), b.features / 4);
    const done = m._pc_net_forward(this.handle, b.features, n, b.policy, b.wdl, b.score, b.ownership, b.valueError);
    if (done < 0) throw new Error(`${this.name} failed on ${n} positions: ${m.UTF8ToString(m._pc_last_error())}`);
    this.calls += 1;
    this.positions += n;
    const read = (pointer, count) => new Float32Array(m.HEAPF32.buffer, pointer, count).slice();
    return {
      policy: read(b.policy, n * SQUARES),
      wdl: read(b.wdl, n * WDL),
      score: read(b.score, n),
      valueError: this.hasValueError ? read(b.valueError, n) : null,
    };
  }

  freeBuffers() {
    if (!this.buffers) return;
    for (const [key, pointer] of Object.entries(this.buffers)) if (key !== 'capacity') this.core.m._free(pointer);
    this.buffers = null;
  }

  release() {
    this.freeBuffers();
    this.core.m._pc_net_free(this.handle);
  }
}
