// Connection: the session's state machine. Dials, logs in, follows hand-offs, notices a dead
// connection, reconnects with jittered exponential backoff, and resumes the same character.
//
//   idle --connect()--> connecting --open--> handshaking --Welcome--> in_world
//   in_world --ZoneChanged{server_address, ticket}--> handing_off --Welcome there--> in_world
//   in_world / connecting / handshaking --lost, silent, or a retryable Error/Kick--> reconnecting
//   reconnecting --backoff, or resume()--> (dial, Hello) --Welcome--> in_world
//   any --close(), a final Error/Kick, attempts exhausted--> closed
//
// (While reconnecting or handing off, the dial and the login happen within that state: the game
// sees in_world -> reconnecting -> in_world, or in_world -> handing_off -> in_world.)
//
// Pure core: nothing here sets a timer or reads a clock by itself. Transport events are queued
// with the time `now()` says and handled by poll(now), which also runs every timer (connect and
// login deadlines, silence, pings, backoff). The driver (client.ts) calls poll when bytes come
// in and from a timer; a game loop may call it instead, once a frame. Threads: one; every method
// runs on the caller's thread.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import type { ClientMessage, ServerMessage, ZoneChanged } from "./gen/zone_pb";
import { ClientMessageSchema, ErrorCode, ServerMessageSchema } from "./gen/zone_pb";
import { CloseReason, ServerError, ZoneClientError, closeReasonOf, isFinalError, isFinalKick } from "./errors";
import {
  DEFAULT_MAX_FRAME_BYTES, MAX_INBOUND_FRAME_BYTES, MAX_TOKEN_BYTES, MIN_PROTOCOL_VERSION, PROTOCOL_VERSION,
  utf8Length, versionOfSubprotocol,
} from "./protocol";
import type { Transport, TransportClose, TransportFactory } from "./transport/types";
import { dialTarget, schemeOf } from "./transport/types";

export type ConnectionState = "idle" | "connecting" | "handshaking" | "in_world" | "reconnecting" | "handing_off" | "closed";

/** A login token, or a function returning a fresh one for each login (a token logs in once). */
export type TokenSource = string | (() => string | Promise<string>);

export interface ReconnectOptions {
  /** First backoff (ms). Default 100. */
  initialDelayMs?: number;
  /** Largest backoff (ms). Default 1500. */
  maxDelayMs?: number;
  /** Attempts in a row before giving up (closed, gave_up). Default Infinity. */
  maxAttempts?: number;
  /** Off: the first loss closes the client. Default on. */
  enabled?: boolean;
}

export interface ConnectionOptions {
  /** ws://host:port/, wss://..., or tcp://host:port (Node). */
  url: string;
  /** Auth mode none: the character's name. */
  name?: string;
  /** Auth mode token: the token, or a function giving a fresh one per login. */
  token?: TokenSource;
  /** Picks the transport for a URL's scheme (index.ts: the browser's; node.ts: ws and net). */
  transportFor: (url: string) => TransportFactory | undefined;
  /** The server's limits.max_frame_bytes (default 65536): larger messages are refused before sending. */
  maxFrameBytes?: number;
  connectTimeoutMs?: number; // default 5000
  loginTimeoutMs?: number; // default 10000
  /** In the world, no byte for this long means the connection is dead. Default 3000. */
  silenceTimeoutMs?: number;
  /** After resume(), no byte for this long means the connection is dead. Default 1500. */
  probeTimeoutMs?: number;
  /** Ping period in the world (ms). Default 1000 (the server allows 5 per second). */
  pingIntervalMs?: number;
  reconnect?: ReconnectOptions;
  /** Over WebSocket, the URL to dial for a hand-off, from ZoneChanged.websocket_url (default: as it is). */
  handoffUrl?: (websocketUrl: string, currentUrl: string) => string;
  /** Random numbers in [0, 1) for the backoff's jitter. */
  random?: () => number;
}

export interface ConnectionHandler {
  /** Every server message, in order, with the local time its bytes arrived. */
  message(m: ServerMessage, arrivalMs: number): void;
  /** The state changed; `reason`/`error` say why when it is closed or reconnecting. */
  stateChange(to: ConnectionState, from: ConnectionState, reason: CloseReason | undefined, error: ZoneClientError | undefined): void;
  /** A Hello was sent at `now` (the Welcome's clock sample is timed from it). */
  helloSent(now: number): void;
  /** Bytes moved (for stats). */
  bytes(inBytes: number, outBytes: number): void;
  /** Wake the driver: there is something for poll(). */
  wake(): void;
}

type Queued =
  | { gen: number; kind: "open"; protocol: string; at: number }
  | { gen: number; kind: "message"; m: ServerMessage; at: number }
  | { gen: number; kind: "close"; info: TransportClose; at: number }
  | { gen: number; kind: "token"; token: string; at: number }
  | { gen: number; kind: "token_failed"; error: Error; at: number };

/** The default hand-off URL over WebSocket: ZoneChanged.websocket_url as it is. */
export function defaultHandoffUrl(websocketUrl: string, _currentUrl: string): string {
  return websocketUrl;
}

/** ZoneChanged.websocket_url (protocol 10): the next node's WebSocket door, a URL to open as it is; "" when it has none. */
export function websocketUrlOf(z: ZoneChanged): string {
  return z.websocketUrl;
}

export class Connection {
  state: ConnectionState = "idle";
  /** The protocol version of the session (the subprotocol the WebSocket door accepted). */
  protocolVersion = PROTOCOL_VERSION;
  /** Reconnects that reached the world again; hand-offs followed. */
  reconnects = 0;
  handoffs = 0;
  /** Why the last attempt failed (while reconnecting). */
  lastFailure: ZoneClientError | undefined;
  /** Why the client closed, once closed. */
  closeReason: CloseReason | undefined;
  closeError: ZoneClientError | undefined;
  /** The URL of the node the session is on (changes with hand-offs). */
  currentUrl: string;

  private readonly opts: Required<Omit<ConnectionOptions, "name" | "token" | "reconnect">> & { name?: string; token?: TokenSource };
  private readonly rc: Required<ReconnectOptions>;
  private transport: Transport | null = null;
  private gen = 0;
  private queue: Queued[] = [];
  private ticket = ""; // the dial in progress is a hand-off with this ticket
  private dialUrl = "";
  private attempts = 0; // failed attempts in a row
  private nextAttemptAt = 0;
  private deadline = Infinity; // connect or login deadline of the dial in progress
  private lastReceiveAt = 0;
  private nextPingAt = 0;
  private probeSince = NaN; // resume(): no byte since then by probeDeadline means dead
  private probeDeadline = Infinity;
  private kick: string | undefined;
  private serverError: ServerError | undefined;
  private everInWorld = false;
  private closing = false; // close() asked
  private closingDeadline = Infinity;
  private pendingFailure: { reason: CloseReason; error: ZoneClientError } | undefined;

  constructor(options: ConnectionOptions, private readonly handler: ConnectionHandler, private readonly now: () => number) {
    this.opts = {
      maxFrameBytes: DEFAULT_MAX_FRAME_BYTES,
      connectTimeoutMs: 5000,
      loginTimeoutMs: 10000,
      silenceTimeoutMs: 3000,
      probeTimeoutMs: 1500,
      pingIntervalMs: 1000,
      handoffUrl: defaultHandoffUrl,
      random: Math.random,
      ...options,
    };
    this.rc = { initialDelayMs: 100, maxDelayMs: 1500, maxAttempts: Infinity, enabled: true, ...options.reconnect };
    this.currentUrl = options.url;
    if (options.name === undefined && options.token === undefined) {
      throw new ZoneClientError("invalid_argument", "connect: give a name (auth mode none) or a token (auth mode token)");
    }
    if (options.name !== undefined && (utf8Length(options.name) === 0 || utf8Length(options.name) > 32)) {
      throw new ZoneClientError("bad_name", "a player name is 1..32 bytes of UTF-8");
    }
  }

  /** Starts the session. */
  start(now: number): void {
    if (this.state !== "idle") return;
    this.dial(now, this.opts.url, "", "connecting");
  }

  /** Back in the foreground: ping at once, and reconnect at once if the connection is gone. */
  resume(now: number): void {
    if (this.state === "reconnecting" && this.transport === null) {
      this.nextAttemptAt = now;
      this.handler.wake();
    } else if (this.state === "in_world") {
      this.sendPing(now);
      this.probeSince = now;
      this.probeDeadline = now + this.opts.probeTimeoutMs;
    }
  }

  /** Logs out (Logout, then the server's Kick "logout") and closes; at most `graceMs` later it closes anyway. */
  close(now: number, graceMs = 2000): void {
    if (this.state === "closed") return;
    this.closing = true;
    if (this.state === "in_world" && this.transport !== null) {
      this.trySend(create(ClientMessageSchema, { kind: { case: "logout", value: {} } }));
      this.closingDeadline = now + graceMs;
    } else {
      this.finish(CloseReason.ClientClosed, undefined);
    }
  }

  /**
   * Sends a message (in the world only). Throws ZoneClientError: frame_too_large over the
   * server's max_frame_bytes (nothing is sent), not_in_world.
   */
  send(m: ClientMessage): void {
    if (this.state !== "in_world" || this.transport === null) {
      throw new ZoneClientError("not_in_world", `cannot send while ${this.state}`);
    }
    this.sendBytes(this.encode(m));
  }

  /** Encodes `m`, refusing one over the server's frame limit. */
  encode(m: ClientMessage): Uint8Array {
    const bytes = toBinary(ClientMessageSchema, m);
    if (bytes.length > this.opts.maxFrameBytes) {
      throw new ZoneClientError("frame_too_large", `message of ${bytes.length} bytes is over the server's limit of ${this.opts.maxFrameBytes}`, {
        bytes: bytes.length,
        limit: this.opts.maxFrameBytes,
      });
    }
    return bytes;
  }

  private trySend(m: ClientMessage): void {
    try {
      this.sendBytes(this.encode(m));
    } catch {
      /* nothing to do: the session is ending */
    }
  }

  private sendBytes(bytes: Uint8Array): void {
    if (this.transport === null) return;
    this.transport.send(bytes);
    this.handler.bytes(0, bytes.length + (bytes.length < 128 ? 1 : 2));
  }

  /** Runs everything due at `now`: queued transport events, then timers. */
  poll(now: number): void {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      for (const q of batch) this.handle(q, now);
    }
    this.timers(now);
  }

  private handle(q: Queued, now: number): void {
    if (q.gen !== this.gen) return; // a transport we left
    switch (q.kind) {
      case "token":
        return this.open(now, q.token);
      case "token_failed":
        return this.failed(now, CloseReason.Unknown, new ZoneClientError("connection_lost", `token provider failed: ${q.error.message}`), false);
      case "open":
        return this.opened(now, q.protocol);
      case "message":
        return this.received(now, q.m, q.at);
      case "close":
        return this.lost(now, q.info);
    }
  }

  private setState(to: ConnectionState, reason?: CloseReason, error?: ZoneClientError): void {
    const from = this.state;
    if (from === to) return;
    this.state = to;
    this.handler.stateChange(to, from, reason, error);
  }

  /** Dials `url`: with `ticket` (a hand-off) or the login's name / token. */
  private dial(now: number, url: string, ticket: string, state: ConnectionState): void {
    this.dropTransport();
    this.gen++;
    this.ticket = ticket;
    this.dialUrl = url;
    this.kick = undefined;
    this.serverError = undefined;
    this.pendingFailure = undefined;
    this.deadline = now + this.opts.connectTimeoutMs;
    this.setState(state);
    const token = this.opts.token;
    if (ticket === "" && typeof token === "function") {
      const gen = this.gen;
      let value: string | Promise<string>;
      try {
        value = token();
      } catch (e) {
        this.queue.push({ gen, kind: "token_failed", error: e as Error, at: now });
        return;
      }
      if (typeof value === "string") return this.open(now, value);
      value.then(
        (t) => this.push({ gen, kind: "token", token: t, at: this.now() }),
        (e: unknown) => this.push({ gen, kind: "token_failed", error: e instanceof Error ? e : new Error(String(e)), at: this.now() }),
      );
      return;
    }
    this.open(now, typeof token === "string" ? token : "");
  }

  private pendingToken = "";

  private push(q: Queued): void {
    this.queue.push(q);
    this.handler.wake();
  }

  private open(now: number, token: string): void {
    if (utf8Length(token) > MAX_TOKEN_BYTES) {
      return this.failed(now, CloseReason.ServerError, new ZoneClientError("token_too_long", `a login token is at most ${MAX_TOKEN_BYTES} bytes`), true);
    }
    this.pendingToken = token;
    const factory = this.opts.transportFor(this.dialUrl);
    if (factory === undefined) {
      return this.failed(now, CloseReason.Unknown, new ZoneClientError("transport_unsupported", `no transport for ${this.dialUrl} here`), true);
    }
    const gen = this.gen;
    try {
      this.transport = factory(dialTarget(this.dialUrl, MAX_INBOUND_FRAME_BYTES), {
        onOpen: (protocol) => this.push({ gen, kind: "open", protocol, at: this.now() }),
        onMessage: (bytes) => {
          const at = this.now();
          this.handler.bytes(bytes.length, 0);
          let m: ServerMessage;
          try {
            m = fromBinary(ServerMessageSchema, bytes);
          } catch (e) {
            this.push({ gen, kind: "close", info: { error: new Error(`a server frame that does not parse: ${(e as Error).message}`) }, at });
            return;
          }
          this.push({ gen, kind: "message", m, at });
        },
        onClose: (info) => this.push({ gen, kind: "close", info, at: this.now() }),
      });
    } catch (e) {
      this.push({ gen, kind: "close", info: { error: e as Error }, at: now });
    }
  }

  private opened(now: number, protocol: string): void {
    const scheme = schemeOf(this.dialUrl);
    if (scheme === "ws" || scheme === "wss") {
      const v = versionOfSubprotocol(protocol);
      if (v === undefined || v < MIN_PROTOCOL_VERSION || v > PROTOCOL_VERSION) {
        return this.failed(now, CloseReason.ProtocolVersion, new ZoneClientError("protocol_version", `the server accepted subprotocol "${protocol}"; this SDK speaks zone.v${MIN_PROTOCOL_VERSION}..zone.v${PROTOCOL_VERSION}`), true);
      }
      this.protocolVersion = v;
    } else {
      this.protocolVersion = PROTOCOL_VERSION;
    }
    if (this.state === "connecting") this.setState("handshaking");
    const hello = this.ticket !== ""
      ? { protocolVersion: this.protocolVersion, ticket: this.ticket }
      : { protocolVersion: this.protocolVersion, playerName: this.opts.name ?? "", authToken: this.pendingToken };
    this.deadline = now + this.opts.loginTimeoutMs;
    this.sendBytes(toBinary(ClientMessageSchema, create(ClientMessageSchema, { kind: { case: "hello", value: hello } })));
    this.handler.helloSent(now);
  }

  private received(now: number, m: ServerMessage, at: number): void {
    this.lastReceiveAt = Math.max(this.lastReceiveAt, at);
    this.handler.message(m, at);
    switch (m.kind.case) {
      case "welcome": {
        const from = this.state;
        this.deadline = Infinity;
        this.attempts = 0;
        this.nextPingAt = now;
        this.probeDeadline = Infinity;
        this.currentUrl = this.dialUrl;
        if (from === "handing_off") this.handoffs++;
        else if (from === "reconnecting" || (this.everInWorld && from !== "in_world")) this.reconnects++;
        this.everInWorld = true;
        this.setState("in_world");
        break;
      }
      case "zoneChanged": {
        const z = m.kind.value;
        if (z.serverAddress === "" || z.ticket === "") break; // a zone of this server
        const scheme = schemeOf(this.dialUrl);
        let url = `tcp://${z.serverAddress}`;
        if (scheme === "ws" || scheme === "wss") {
          const wsUrl = websocketUrlOf(z);
          if (wsUrl === "") {
            return this.failed(now, CloseReason.HandoffFailed, new ZoneClientError("no_websocket_address", `hand-off to ${z.zoneName} at ${z.serverAddress}: the server gave no WebSocket URL for it (ZoneChanged.websocket_url, protocol 10); that node has no WebSocket door, or the server is older`), true);
          }
          url = this.opts.handoffUrl(wsUrl, this.dialUrl);
        }
        this.dial(now, url, z.ticket, "handing_off");
        break;
      }
      case "kick":
        this.kick = m.kind.value.reason;
        break;
      case "error":
        this.serverError = new ServerError(m.kind.value.code, m.kind.value.message);
        break;
      default:
        break;
    }
  }

  /** The transport closed. */
  private lost(now: number, info: TransportClose): void {
    this.transport = null;
    if (this.closing) return this.finish(this.kick === "logout" ? CloseReason.Logout : CloseReason.ClientClosed, undefined);
    if (this.pendingFailure) return this.finish(this.pendingFailure.reason, this.pendingFailure.error);
    const kickReason = this.kick ?? (info.code !== undefined && info.code !== 1000 && info.code !== 1006 ? info.reason : undefined);
    if (this.serverError) {
      const e = this.serverError;
      const code = e.serverCode ?? ErrorCode.UNSPECIFIED;
      // A hand-off's ticket refused: log in afresh at the entry (the login is routed).
      if (code === ErrorCode.BAD_TICKET) return this.failed(now, CloseReason.HandoffFailed, e, false);
      return this.failed(now, CloseReason.ServerError, e, isFinalError(code));
    }
    if (kickReason !== undefined && kickReason !== "") {
      const reason = closeReasonOf(kickReason);
      if (reason === CloseReason.ZoneHandoff) return this.failed(now, reason, new ZoneClientError("handoff_failed", "kicked for a hand-off without a ticket"), false);
      return this.failed(now, reason, new ZoneClientError("kicked", `kicked: ${kickReason}`, { reason: kickReason }), isFinalKick(reason));
    }
    if (info.httpStatus !== undefined && info.httpStatus !== 503) {
      return this.failed(now, info.httpStatus === 400 ? CloseReason.ProtocolVersion : CloseReason.Unknown, new ZoneClientError(info.httpStatus === 400 ? "protocol_version" : "connection_lost", info.error?.message ?? `HTTP ${info.httpStatus}`), true);
    }
    const what = info.error?.message ?? (info.reason ? `closed: ${info.reason}` : `closed${info.code !== undefined ? ` (${info.code})` : ""}`);
    this.failed(now, this.state === "handing_off" ? CloseReason.HandoffFailed : CloseReason.Unknown, new ZoneClientError("connection_lost", what), false);
  }

  /** The session (or this attempt) failed: reconnect with backoff, or close when `final`. */
  private failed(now: number, reason: CloseReason, error: ZoneClientError, final: boolean, immediate = false): void {
    if (final || !this.rc.enabled) {
      if (this.transport !== null) {
        // Let the server's close (and its Kick/Error) come first; the close finishes.
        this.pendingFailure = { reason, error };
        this.transport.close();
        return;
      }
      return this.finish(reason, error);
    }
    this.dropTransport();
    this.attempts++;
    if (this.attempts > this.rc.maxAttempts) return this.finish(CloseReason.GaveUp, error);
    const backoff = Math.min(this.rc.maxDelayMs, this.rc.initialDelayMs * 2 ** Math.min(this.attempts - 1, 30));
    this.nextAttemptAt = immediate ? now : now + backoff * (0.5 + 0.5 * this.opts.random());
    this.lastFailure = error;
    this.setState("reconnecting", reason, error);
  }

  private finish(reason: CloseReason, error: ZoneClientError | undefined): void {
    this.dropTransport();
    this.gen++;
    this.closeReason = reason;
    this.closeError = error;
    this.deadline = Infinity;
    this.setState("closed", reason, error);
  }

  private dropTransport(): void {
    if (this.transport !== null) {
      const t = this.transport;
      this.transport = null;
      this.gen++; // its events are ignored from now on
      t.close();
    }
  }

  private sendPing(now: number): void {
    this.trySend(create(ClientMessageSchema, { kind: { case: "ping", value: { clientTime: BigInt(Math.max(0, Math.round(now))) } } }));
    this.nextPingAt = now + this.opts.pingIntervalMs;
  }

  private timers(now: number): void {
    switch (this.state) {
      case "reconnecting":
        if (this.transport === null && now >= this.nextAttemptAt && !this.closing) this.dial(now, this.opts.url, "", "reconnecting");
        else if (this.transport !== null && now >= this.deadline) this.failed(now, CloseReason.Unknown, new ZoneClientError("connection_lost", "no answer to the login in time"), false);
        break;
      case "connecting":
      case "handshaking":
      case "handing_off":
        if (now >= this.deadline) {
          const handoff = this.state === "handing_off";
          this.failed(now, handoff ? CloseReason.HandoffFailed : CloseReason.Unknown, new ZoneClientError(handoff ? "handoff_failed" : "connection_lost", "no answer in time"), false);
        }
        break;
      case "in_world":
        if (this.closing && now >= this.closingDeadline) return this.finish(CloseReason.ClientClosed, undefined);
        if (now - this.lastReceiveAt > this.opts.silenceTimeoutMs) {
          return this.failed(now, CloseReason.Unknown, new ZoneClientError("connection_lost", `nothing from the server for ${this.opts.silenceTimeoutMs} ms`), false, true);
        }
        if (now >= this.probeDeadline) {
          this.probeDeadline = Infinity;
          if (this.lastReceiveAt < this.probeSince) {
            return this.failed(now, CloseReason.Unknown, new ZoneClientError("connection_lost", "no answer to the probe after resume"), false, true);
          }
        }
        if (now >= this.nextPingAt && !this.closing) this.sendPing(now);
        break;
      default:
        break;
    }
  }
}
