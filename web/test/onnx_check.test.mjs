// onnx_check.js: a tensor stored outside the file is found wherever it hides, a file of ours has
// none, and bytes that are no protobuf are refused rather than misread. Messages are built here
// by hand from onnx.proto's field numbers; the browser test (tests/web/test_worker_fuzz.py)
// runs the same check over models written by the onnx library.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { OnnxFormatError, externalTensor } from '../src/onnx_check.js';

const bytes = (...parts) => Uint8Array.from(parts.flat());
const varint = (n) => {
  const out = [];
  do {
    out.push((n & 0x7f) | (n > 0x7f ? 0x80 : 0));
    n = Math.floor(n / 128);
  } while (n > 0);
  return out;
};
const message = (field, body) => [...varint((field << 3) | 2), ...varint(body.length), ...body];
const number = (field, value) => [...varint(field << 3), ...varint(value)];
const text = (field, value) => message(field, [...new TextEncoder().encode(value)]);

// TensorProto: name 8, external_data 13, data_location 14.
const flagged = [...text(8, 'hidden'), ...number(14, 1)];
const namedOnly = [...text(8, 'named'), ...message(13, [...text(1, 'location'), ...text(2, 'secret.bin')])];
const inside = [...text(8, 'fine'), ...message(9, [1, 2, 3, 4])];
// ModelProto.graph 7 > GraphProto.initializer 5; GraphProto.node 1 > NodeProto.attribute 5 > AttributeProto.t 5
// and .g 6 (a subgraph); ModelProto.functions 25 > FunctionProto.node 7.
const model = (graph) => bytes(message(7, graph));
const asInitializer = (tensor) => message(5, tensor);
const inAttribute = (tensor) => message(1, message(5, message(5, tensor)));
const subgraph = (graph) => message(1, message(5, message(6, graph))); // a node whose attribute is a graph

test('a tensor stored outside the file is found in every place it can hide', () => {
  assert.equal(externalTensor(model(asInitializer(flagged))), 'hidden');
  assert.equal(externalTensor(model(asInitializer(namedOnly))), 'named');
  assert.equal(externalTensor(model(inAttribute(flagged))), 'hidden');
  assert.equal(externalTensor(model(subgraph(subgraph(asInitializer(namedOnly))))), 'named');
  assert.equal(externalTensor(bytes(message(25, message(7, message(5, message(5, flagged)))))), 'hidden');
  assert.equal(externalTensor(model([...asInitializer(inside), ...inAttribute(inside)])), null);
});

test('bytes that are no protobuf are refused, not misread', () => {
  assert.throws(() => externalTensor(bytes(message(7, [0x2a, 0x7f]))), OnnxFormatError); // a length past its message
  assert.throws(() => externalTensor(bytes([0x3a, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01])), OnnxFormatError);
  assert.throws(() => externalTensor(bytes([0x0b])), OnnxFormatError); // wire type 3 (a group)
  assert.throws(() => externalTensor(bytes([0x08])), OnnxFormatError); // ends inside a number
});

const SHIPPED = new URL('../../weights/popucom-small-v12.onnx', import.meta.url);
test('a shipped model holds every tensor itself', { skip: !existsSync(SHIPPED) && 'no shipped model' }, () => {
  assert.equal(externalTensor(new Uint8Array(readFileSync(SHIPPED))), null);
});
