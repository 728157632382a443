// TCP framing: each message is prefixed by its length as a protobuf varint (what
// writeDelimitedTo / parseDelimitedFrom produce). WebSocket needs none: one binary message is
// one protobuf message.
//
// FrameDecoder takes bytes as they come and hands out whole frames. A length is checked against
// the limit before its body is buffered (an oversized or malformed length is a typed error and
// the stream is unusable from then on). Pure: no I/O, no timers.

export type FrameError = "too_large" | "bad_length";

/** The varint encoding of `n` (0 <= n < 2^32). */
export function encodeVarint(n: number): Uint8Array {
  const out: number[] = [];
  let v = n >>> 0;
  while (v >= 0x80) {
    out.push((v & 0x7f) | 0x80);
    v >>>= 7;
  }
  out.push(v);
  return Uint8Array.from(out);
}

/** `body` with its varint length in front. */
export function frame(body: Uint8Array): Uint8Array {
  const prefix = encodeVarint(body.length);
  const out = new Uint8Array(prefix.length + body.length);
  out.set(prefix, 0);
  out.set(body, prefix.length);
  return out;
}

export class FrameDecoder {
  private buf = new Uint8Array(0);
  private start = 0; // first unread byte of buf
  private end = 0; // one past the last byte of buf
  private failed: FrameError | undefined;

  /** @param maxFrameBytes the largest body accepted */
  constructor(private readonly maxFrameBytes: number) {}

  /** Why the stream failed, if it did (then next() returns nothing more). */
  get error(): FrameError | undefined {
    return this.failed;
  }

  /** Bytes buffered and not yet handed out. */
  get buffered(): number {
    return this.end - this.start;
  }

  feed(bytes: Uint8Array): void {
    if (this.failed) return;
    const need = this.end - this.start + bytes.length;
    if (this.end + bytes.length > this.buf.length) {
      if (need <= this.buf.length && this.start > 0) {
        this.buf.copyWithin(0, this.start, this.end);
      } else {
        const bigger = new Uint8Array(Math.max(need, this.buf.length * 2, 4096));
        bigger.set(this.buf.subarray(this.start, this.end), 0);
        this.buf = bigger;
      }
      this.end -= this.start;
      this.start = 0;
    }
    this.buf.set(bytes, this.end);
    this.end += bytes.length;
  }

  /** The next whole frame's body (a view valid until the next feed), or undefined. */
  next(): Uint8Array | undefined {
    if (this.failed) return undefined;
    let length = 0;
    let shift = 0;
    let i = this.start;
    for (;;) {
      if (i >= this.end) return undefined; // the length itself is not complete yet
      const b = this.buf[i++];
      if (shift === 28 && b > 0x0f) {
        this.failed = "bad_length"; // more than 32 bits
        return undefined;
      }
      length += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
    }
    if (length > this.maxFrameBytes) {
      this.failed = "too_large";
      return undefined;
    }
    if (this.end - i < length) return undefined;
    this.start = i + length;
    const body = this.buf.subarray(i, i + length);
    if (this.start === this.end) {
      this.start = 0;
      this.end = 0;
    }
    return body;
  }
}
