// A model file reads nothing but itself: finds a tensor an ONNX file stores outside its own
// bytes (ONNX "external data"), wherever it hides (initializers, Constant nodes and other
// tensor attributes, sparse tensors, subgraphs at any depth, local functions, training info),
// before the runtime sees the file. The same rule as popucom/nn/export.py's external_tensor,
// read straight from the protobuf wire format: the page carries no ONNX library.

// The fields that lead to tensors, per message (onnx.proto's field numbers).
const CHILDREN = {
  model: { 7: 'graph', 20: 'training', 25: 'function' },
  training: { 1: 'graph', 2: 'graph' },
  graph: { 1: 'node', 5: 'tensor', 15: 'sparse' },
  function: { 7: 'node', 11: 'attribute' },
  node: { 5: 'attribute' },
  attribute: { 5: 'tensor', 6: 'graph', 10: 'tensor', 11: 'graph', 22: 'sparse', 23: 'sparse' },
  sparse: { 1: 'tensor', 2: 'tensor' },
  tensor: {},
};
const TENSOR_NAME = 8;
const TENSOR_EXTERNAL_DATA = 13; // entries naming the file: external even without the flag
const TENSOR_DATA_LOCATION = 14;
const EXTERNAL = 1;

export class OnnxFormatError extends Error {}

/** The varint at `at` and the offset after it. */
function varint(bytes, at, end) {
  let value = 0;
  for (let shift = 0; shift < 64; shift += 7) {
    if (at >= end) throw new OnnxFormatError('the file ends inside a number');
    const byte = bytes[at++];
    // No file reaches 2^49 bytes: a number past it is no length (and no key, and no flag we look for).
    if (shift < 49) value += (byte & 0x7f) * 2 ** shift;
    else if (byte & 0x7f) value = Infinity;
    if (!(byte & 0x80)) return [value, at];
  }
  throw new OnnxFormatError('a number longer than ten bytes');
}

/**
 * The fields of the message in bytes[start, end): calls visit(field, wireType, valueStart,
 * valueEnd, number) for each (number: a varint's value).
 */
function fields(bytes, start, end, visit) {
  let at = start;
  while (at < end) {
    let key;
    [key, at] = varint(bytes, at, end);
    const field = Math.floor(key / 8);
    const wireType = key % 8;
    if (wireType === 0) {
      let number;
      const from = at;
      [number, at] = varint(bytes, at, end);
      visit(field, wireType, from, at, number);
    } else if (wireType === 2) {
      let length;
      [length, at] = varint(bytes, at, end);
      if (length > end - at) throw new OnnxFormatError('a field runs past the end of its message');
      visit(field, wireType, at, at + length, length);
      at += length;
    } else if (wireType === 1 || wireType === 5) {
      at += wireType === 1 ? 8 : 4;
      if (at > end) throw new OnnxFormatError('the file ends inside a number');
    } else {
      throw new OnnxFormatError(`wire type ${wireType} at byte ${at}: not a protobuf file`);
    }
  }
}

/**
 * The name of the first tensor of the ONNX model `bytes` (a Uint8Array) stored outside the file
 * (or '(unnamed)'), or null when every tensor lies inside it. OnnxFormatError when the bytes
 * are not a protobuf message at all.
 */
export function externalTensor(bytes) {
  const pending = [['model', 0, bytes.length]]; // its own stack: subgraphs nest without limit
  while (pending.length) {
    const [kind, start, end] = pending.pop();
    const children = CHILDREN[kind];
    let external = false;
    let name = '(unnamed)';
    fields(bytes, start, end, (field, wireType, from, to, number) => {
      if (kind === 'tensor') {
        if (field === TENSOR_EXTERNAL_DATA && wireType === 2) external = true;
        if (field === TENSOR_DATA_LOCATION && wireType === 0 && number === EXTERNAL) external = true;
        if (field === TENSOR_NAME && wireType === 2) name = new TextDecoder().decode(bytes.subarray(from, to));
      } else if (wireType === 2 && children[field]) {
        pending.push([children[field], from, to]);
      }
    });
    if (external) return name;
  }
  return null;
}
