// Loads the C++ core (wasm/popucom_core.js, built by `popucom web build` from csrc/) and wraps
// its C calling convention: strings and arrays in and out of the module's memory, and the
// negative-return-plus-pc_last_error() error convention turned into thrown CoreErrors.
// Shared by the page (rules.js) and the engine worker; each loads its own instance.

export class CoreError extends Error {}

const SIGNED_ERROR = -2147483648; // INT32_MIN, web_api.cpp's error return where values may be negative

/**
 * The core under `siteUrl` (the site's root URL). `moduleOptions` go to the emscripten factory
 * (a test under node passes `wasmBinary`, node having no fetch of file URLs).
 */
export async function loadCore(siteUrl, moduleOptions = {}) {
  const site = new URL(siteUrl, globalThis.location?.href);
  const { default: createPopucomCore } = await import(new URL('wasm/popucom_core.js', site).href);
  const module = await createPopucomCore({
    locateFile: (file) => new URL(`wasm/${file}`, site).href,
    ...moduleOptions,
  });
  return new Core(module);
}

export class Core {
  constructor(module) {
    this.m = module;
    this.scratch = module._malloc(256); // square names, parameter names, the cells of one game
  }

  /** The result of a C call, or a CoreError with the core's message when it is negative. */
  check(result) {
    if (result < 0) throw this.error();
    return result;
  }

  /** The same for the calls whose values may be negative (score, komi): INT32_MIN is the error. */
  checkSigned(result) {
    if (result === SIGNED_ERROR) throw this.error();
    return result;
  }

  error() {
    return new CoreError(this.m.UTF8ToString(this.m._pc_last_error()));
  }

  /** Calls fn(pointer) with `text` as a NUL-terminated string in the module's memory. */
  withString(text, fn) {
    const bytes = this.m.lengthBytesUTF8(text) + 1;
    const pointer = bytes <= 256 ? this.scratch : this.m._malloc(bytes);
    try {
      this.m.stringToUTF8(text, pointer, bytes);
      return fn(pointer);
    } finally {
      if (pointer !== this.scratch) this.m._free(pointer);
    }
  }

  /** A copy of `length` bytes (Uint8Array) or signed bytes (Int8Array) fn wrote at a scratch pointer. */
  readBytes(length, fn, type = Uint8Array) {
    this.check(fn(this.scratch));
    return new type(this.m.HEAPU8.buffer, this.scratch, length).slice();
  }

  squareName(square) {
    if (!Number.isInteger(square)) throw new CoreError(`square ${square} is not a whole number`);
    return this.readBytes(3, (p) => this.m._pc_square_name(square, p))
      .subarray(0, 2)
      .reduce((text, byte) => text + String.fromCharCode(byte), '');
  }

  squareIndex(name) {
    if (typeof name !== 'string') throw new CoreError(`a move is a square name like e5, not ${typeof name}`);
    return this.check(this.withString(name, (p) => this.m._pc_parse_square(p)));
  }
}
