// Typed errors and close reasons. Every limit the SDK knows is refused before sending with a
// ZoneClientError naming it; every Error and Kick from the server becomes a typed value
// (ServerError, CloseReason); nothing closes silently.
import { ErrorCode } from "./gen/zone_pb";

/** What went wrong on the client's side (or what the server's answer means for the caller). */
export type ClientErrorCode =
  | "frame_too_large" // the encoded message is over the server's max_frame_bytes
  | "chat_too_long" // chat text over 256 bytes of UTF-8
  | "bad_text" // empty chat text or with control characters
  | "token_too_long" // login token over 512 bytes
  | "bad_name" // player name empty or over 32 bytes
  | "invalid_argument" // NaN/inf direction, facing out of range, ...
  | "not_in_world" // an input while not in the world
  | "unknown_skill" // a skill the Welcome did not list
  | "skill_on_cooldown" // the skill is still cooling down (cooldownLeft > 0)
  | "refused" // the server refused the input (InputResult outcome, see `outcome`)
  | "result_lost" // the input was acknowledged but its result was in a dropped frame
  | "result_timeout" // no result in time
  | "connection_lost" // the connection ended before the answer came
  | "closed" // the client was closed
  | "server_error" // the server sent Error (see `serverCode`)
  | "kicked" // the server sent Kick (see `reason`)
  | "handoff_failed" // a hand-off could not be followed
  | "no_websocket_address" // a hand-off over WebSocket without the next node's WebSocket door
  | "transport_unsupported" // e.g. tcp:// in a browser
  | "protocol_version" // the server speaks no version this SDK does
  | "inbound_frame_too_large" // the server sent a frame over MAX_INBOUND_FRAME_BYTES
  | "decode_failed"; // a server frame that does not parse

export class ZoneClientError extends Error {
  override readonly name = "ZoneClientError";
  constructor(
    readonly code: ClientErrorCode,
    message: string,
    readonly details: {
      serverCode?: ErrorCode;
      reason?: string;
      outcome?: number;
      bytes?: number;
      limit?: number;
    } = {},
  ) {
    super(message);
  }
  get serverCode(): ErrorCode | undefined {
    return this.details.serverCode;
  }
}

/** The server's Error message as a typed error. */
export class ServerError extends ZoneClientError {
  constructor(code: ErrorCode, text: string) {
    super("server_error", `server error ${ErrorCode[code] ?? code}: ${text}`, { serverCode: code });
  }
}

/**
 * Why a session ended. The first group mirrors the Kick reasons of zone.proto (and the
 * WebSocket close reasons of docs/protocol.md, which carry the same names); the second is the
 * client's own.
 */
export enum CloseReason {
  // DO NOT RENAME: these strings are the server's Kick.reason values.
  Logout = "logout",
  Shutdown = "shutdown",
  Idle = "idle",
  SlowReader = "slow_reader",
  LoggedInElsewhere = "logged_in_elsewhere",
  ZoneHandoff = "zone_handoff",
  Flood = "flood",
  BadWebSocket = "bad_websocket",
  BadFrame = "bad_frame",
  ProtocolVersion = "protocol_version",
  // The client's own.
  ClientClosed = "client_closed", // close() was called
  ServerError = "server_error", // an Error the SDK cannot retry (bad name, auth failed, ...)
  HandoffFailed = "handoff_failed", // a hand-off that could not be followed
  GaveUp = "gave_up", // reconnect attempts exhausted
  Unknown = "unknown",
}

const kKnownReasons = new Set<string>(Object.values(CloseReason));

/** A Kick reason (or WebSocket close reason) as a CloseReason; unknown ones are Unknown. */
export function closeReasonOf(reason: string): CloseReason {
  return kKnownReasons.has(reason) ? (reason as CloseReason) : CloseReason.Unknown;
}

/** Kick reasons after which the SDK does not reconnect by itself. */
export function isFinalKick(reason: CloseReason): boolean {
  return (
    reason === CloseReason.Logout ||
    reason === CloseReason.Idle ||
    reason === CloseReason.LoggedInElsewhere ||
    reason === CloseReason.BadFrame ||
    reason === CloseReason.BadWebSocket ||
    reason === CloseReason.ProtocolVersion
  );
}

/** Server errors after which the SDK does not reconnect by itself (retrying cannot help). */
export function isFinalError(code: ErrorCode): boolean {
  switch (code) {
    case ErrorCode.PROTOCOL_VERSION:
    case ErrorCode.BAD_FRAME:
    case ErrorCode.ALREADY_LOGGED_IN:
    case ErrorCode.BAD_VALUE:
    case ErrorCode.BAD_NAME:
    case ErrorCode.AUTH_FAILED:
      return true;
    default:
      return false; // SERVER_FULL, STORAGE_UNAVAILABLE, ZONE_UNAVAILABLE, RATE_LIMITED, ...
  }
}
