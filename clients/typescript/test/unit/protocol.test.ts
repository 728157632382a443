// The protocol constants against the contract, framing, serial-number order.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { FrameDecoder, encodeVarint, frame } from "../../src/framing";
import { PROTOCOL_VERSION, facingFromRadians, offeredSubprotocols, seqAfter, seqNext, utf8Length, versionOfSubprotocol } from "../../src/protocol";
import { PROTO_FILE } from "../support/paths";

test("PROTOCOL_VERSION is the version proto/zone.proto declares", () => {
  const head = readFileSync(PROTO_FILE, "utf8").split("\n")[0];
  const m = /wire protocol, version (\d+)\./.exec(head);
  assert.ok(m, `no version in the first line of zone.proto: ${head}`);
  assert.equal(PROTOCOL_VERSION, Number(m[1]), "bump src/protocol.ts PROTOCOL_VERSION (and run npm run gen)");
});

test("subprotocols offered, newest first", () => {
  assert.equal(offeredSubprotocols()[0], `zone.v${PROTOCOL_VERSION}`);
  assert.equal(versionOfSubprotocol("zone.v9"), 9);
  assert.equal(versionOfSubprotocol("chat"), undefined);
});

test("varint framing round trip, in pieces, with the length checked before the body", () => {
  const bodies = [new Uint8Array(0), new Uint8Array(1).fill(7), new Uint8Array(300).fill(9), new Uint8Array(70000).fill(1)];
  const all = Buffer.concat(bodies.map((b) => Buffer.from(frame(b))));
  const d = new FrameDecoder(1 << 20);
  const out: number[] = [];
  for (let i = 0; i < all.length; i += 333) {
    d.feed(all.subarray(i, Math.min(all.length, i + 333)));
    for (let b = d.next(); b !== undefined; b = d.next()) out.push(b.length);
  }
  assert.deepEqual(out, [0, 1, 300, 70000]);
  assert.equal(d.buffered, 0);
  const small = new FrameDecoder(100);
  small.feed(encodeVarint(101));
  assert.equal(small.next(), undefined);
  assert.equal(small.error, "too_large");
  const bad = new FrameDecoder(100);
  bad.feed(Uint8Array.from([0xff, 0xff, 0xff, 0xff, 0xff, 0x01]));
  assert.equal(bad.next(), undefined);
  assert.equal(bad.error, "bad_length");
});

test("input seqs in serial-number order across the wrap", () => {
  assert.ok(seqAfter(1, 0));
  assert.ok(seqAfter(0, 0xffffffff));
  assert.ok(!seqAfter(0xffffffff, 0));
  assert.ok(!seqAfter(5, 5));
  assert.equal(seqNext(0xffffffff), 0);
});

test("utf8 length and facings", () => {
  assert.equal(utf8Length("abc"), 3);
  assert.equal(utf8Length("Zoë"), 4);
  assert.equal(utf8Length("😀"), 4);
  assert.equal(utf8Length("日本"), 6);
  assert.equal(facingFromRadians(0), 0);
  assert.equal(facingFromRadians(Math.PI / 2), 16384);
  assert.equal(facingFromRadians(-Math.PI / 2), 49152);
});
