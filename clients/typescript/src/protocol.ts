// The protocol's numbers a client needs beside the generated messages: the version it speaks,
// the subprotocols it offers, and the server's default limits (docs/protocol.md "What the
// server will not take"; config/server.yaml `limits:`).
//
// PROTOCOL_VERSION is the one place the version is written. test/unit/protocol.test.ts checks
// it against the header of proto/zone.proto, so a protocol bump that forgets it fails `npm test`.

/** The protocol this SDK speaks (proto/zone.proto). Sent in Hello.protocol_version. */
export const PROTOCOL_VERSION = 10;

/**
 * The oldest protocol this SDK can still read correctly (it needs v9's `turned_*` or, from an
 * older server, the same news as `updated`; v5's tickets). Offered over WebSocket as
 * `zone.v<MIN>` .. `zone.v<PROTOCOL_VERSION>`; the server answers with the newest it speaks.
 */
export const MIN_PROTOCOL_VERSION = 9;

/** Subprotocols offered on the WebSocket handshake, newest first. */
export function offeredSubprotocols(): string[] {
  const out: string[] = [];
  for (let v = PROTOCOL_VERSION; v >= MIN_PROTOCOL_VERSION; v--) out.push(`zone.v${v}`);
  return out;
}

/** The version a `zone.v<N>` subprotocol names, or undefined when it is not one. */
export function versionOfSubprotocol(protocol: string | undefined): number | undefined {
  const m = /^zone\.v(\d+)$/.exec(protocol ?? "");
  return m ? Number(m[1]) : undefined;
}

/** Server default `limits.max_frame_bytes`: a client message larger than this is refused. */
export const DEFAULT_MAX_FRAME_BYTES = 65536;
/** Chat text is 1..256 bytes of UTF-8 without control characters. */
export const MAX_CHAT_BYTES = 256;
/** A login token is at most 512 bytes (docs/accounts.md). */
export const MAX_TOKEN_BYTES = 512;
/** Player names are 1..32 bytes (of their NFC form). */
export const MAX_NAME_BYTES = 32;
/** Inbound: the largest server frame this client buffers (a full picture of a crowd is big). */
export const MAX_INBOUND_FRAME_BYTES = 16 * 1024 * 1024;
/** Server default `limits.ping_rate` per second; the client pings well under it. */
export const SERVER_PING_RATE = 5;

/** Centimetres per metre: positions on the wire are integer centimetres. */
export const CM_PER_M = 100;
/** Angles on the wire are 1/65536 of a turn counter-clockwise from +x. */
export const TURN = 65536;

/** Serial-number order (RFC 1982) for 32-bit input sequence numbers: is `a` newer than `b`? */
export function seqAfter(a: number, b: number): boolean {
  const d = (a - b) >>> 0;
  return d !== 0 && d < 0x80000000;
}

/**
 * Whether the server's `lastInputSeq` acknowledges input `seq`, counting only an ack inside this
 * session's window of inputs, `first` .. `newest` (serial order). A fresh session's frames say 0
 * until the server has judged one of its inputs: that 0 acknowledges nothing, even a seq from
 * the upper half of the space (where serial order would call 0 newer).
 */
export function seqAcked(seq: number, lastInputSeq: number, first: number, newest: number): boolean {
  if (Number.isNaN(first) || seqAfter(first, lastInputSeq) || seqAfter(lastInputSeq, newest)) return false;
  return !seqAfter(seq, lastInputSeq);
}

/** `seq + 1` modulo 2^32. */
export function seqNext(seq: number): number {
  return (seq + 1) >>> 0;
}

/** A facing on the wire (1/65536 turn) from radians. */
export function facingFromRadians(radians: number): number {
  const turns = radians / (2 * Math.PI);
  return ((Math.round((turns - Math.floor(turns)) * TURN) % TURN) + TURN) % TURN;
}

/** Radians from a facing on the wire. */
export function radiansFromFacing(facing: number): number {
  return (facing / TURN) * 2 * Math.PI;
}

/** UTF-8 length of a string. */
export function utf8Length(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length) {
      const d = text.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        n += 4;
        i++;
      } else n += 3;
    } else n += 3;
  }
  return n;
}
