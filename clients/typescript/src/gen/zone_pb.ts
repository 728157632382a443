// The zone server's wire protocol, version 10.
//
// Version history:
//   1: first release.
//   2: interest management (crowds). A client is sent the entities nearest to it every tick and
//      up to a budget of others at a lower rate, not everything in view; TickUpdate gains
//      `moved_ids` / `moved_deltas` (positions as small deltas, see below) and `crowd` (a count of
//      what is in view but not sent). A version-1 Hello is refused with PROTOCOL_VERSION.
//   3: what a game client needs. Welcome describes your character (`you`: hp, max hp, hitbox,
//      speed, view radius, skills with shapes, ranges and cooldowns), the monster templates
//      (names) and the server's wall-clock time; EntityEnter carries a player's `name`; no entity
//      id is ever 0; chat (ClientMessage.chat, TickUpdate.chat: say, zone, whisper); per-input
//      results (TickUpdate.results: accepted, or refused with a reason); HitTarget.damage is the
//      hp actually removed; Pong carries the server's wall-clock time; Logout is answered with
//      Kick "logout" and a stuck reader with Kick "slow_reader"; skill targeting by hitbox
//      surface, lines from the caster's front. A version-2 Hello is refused with PROTOCOL_VERSION.
//   4: accounts and lasting characters. Hello.auth_token logs in with a token from the studio's
//      login service when the server runs with `auth.mode: token` (the token names the account
//      and the character; player_name is then ignored); new ErrorCode AUTH_FAILED and
//      STORAGE_UNAVAILABLE; new Kick reason "logged_in_elsewhere" (a second login for your
//      account took over your character). Characters are kept across logouts and restarts, so
//      Welcome may put you where you left off, hurt, dead or with skills cooling down
//      (Welcome.you.hp, Welcome.you.skills[].ready_in_ms). Nothing was removed or renumbered: a
//      version-3 client is still accepted and simply never sends a token.
//   5: zones on many servers. ZoneChanged may carry `server_address` and `ticket`: the zone you
//      walked into (or logged into) is hosted by another server; reconnect there and send
//      Hello{ticket}. Hello gains `ticket`; new ErrorCode BAD_TICKET and ZONE_UNAVAILABLE; new
//      ServerMessage Notice (e.g. a portal whose zone cannot be reached just now: you stay beside
//      it). Within one server nothing changes. Versions 3 and 4 are still accepted; a server that
//      hosts every zone never sends them anything new.
//   6: each zone of a server ticks on its own (its own thread and tick count). After a
//      ZoneChanged without `server_address` the first TickUpdate has `resync` set and its `tick`
//      is the new zone's count: it may be higher or lower than the last one you saw, and +1 per
//      frame holds again from there. Your entity id and your input sequence numbers go on
//      unchanged. Pong.server_tick is the tick of the zone you are in. No message or field
//      changed: versions 3 to 5 are still accepted and get the same frames (a resync frame,
//      which they already handle after a dropped backlog).
//      Also with 6 (no field changed, so no version of its own): what you are sent is ranked and
//      bounded by the distance between centres (an entity enters within view_radius of your
//      centre, leaves beyond view_radius + hysteresis); before, hitbox surfaces were compared.
//      Chat SAY still reaches every listener whose hitbox is within chat_radius. Inputs sent
//      behind the Hello are applied once your character is in the world, and every move and
//      skill the server judged, refused ones too, advances last_input_seq. Player names follow
//      the Unicode rules (Hello.player_name): normalised to NFC, held to the UTS #39 identifier
//      profile, and no two players online look alike; text fields that are not UTF-8 get their
//      own refusal (BAD_NAME, AUTH_FAILED, BAD_TEXT), never BAD_FRAME.
//   7: hit events are sent for what is near you. TickUpdate.hits holds the skill uses by or on
//      you or an entity of your near tier (the nearest ones in view and those relevant to you:
//      your attacker, your targets, the one you hit last, monsters hunting you); before, by or
//      on any entity you knew. What happens among the others you know reaches you as their hp
//      and alive fields (EntityUpdate), at the mid tier's rate. No message or field changed:
//      versions 3 to 6 are still accepted and get the same frames, hits thinned the same way (a
//      client of 3 to 6 that drew every fight among what it knew draws fewer of them).
//   8: a floor under ranks. Which entities you are sent, and which of them every tick, is
//      decided by centre distance with every distance under the zone's rank floor (0 by
//      default: exact ranks, as before) counted as the floor, ties by ascending entity id. In a
//      zone with a floor, what you are sent of a crowd stacked around you no longer changes each
//      time its members swap places (each change costs an EntityEnter and a left). Also, the
//      farther ones' entries are paid from the zone's byte budget, as their updates are (see
//      EntityEnter): the bytes a client is sent stay bounded in a crowd that shuffles. No
//      message or field changed: versions 3 to 7 are still accepted and get the same frames.
//   9: walkers that turn. TickUpdate gains `turned_ids` / `turned_deltas` / `turned_facings`:
//      an entity whose news is a move and a new facing (a walker that changed direction) is
//      sent as a delta like `moved` plus its facing, 5 to 8 bytes, where an `updated` entry
//      with absolute x, y and facing took 15 to 17. Versions 3 to 8 are still accepted and get
//      such an entity in `updated`, as before (the mid tier's byte budget counts it at a turn's
//      cost, so their mid tier may be sent a few bytes more than the budget in a tick).
//  10: hand-offs over WebSocket. ZoneChanged gains `websocket_url`: the next server's WebSocket
//      door ("ws://host:port/" or a TLS proxy's "wss://..."), so a browser, which cannot open
//      server_address's TCP port, follows a hand-off too. Nothing else changed: versions 3 to 9
//      are still accepted (and are sent the field too; their decoders skip it).
//
// Transport: TCP (or WebSocket, docs/protocol.md "Transports": one binary message per message,
// no prefix). On TCP each frame is one message prefixed by its length as a protobuf varint, which
// is exactly what writeDelimitedTo / parseDelimitedFrom (Java), WriteDelimitedTo /
// ParseDelimitedFrom (C#) and google.protobuf.internal.encoder._VarintBytes (Python) produce, so
// any protobuf library can speak it. The client sends ClientMessage frames, the server sends
// ServerMessage frames. The first client message must be a Hello.
//
// Units: positions are integers in centimetres (1 world unit = 1 metre = 100); angles are
// integers in 1/65536 of a full turn counter-clockwise from +x (0..65535); hit points are plain
// integers; durations are milliseconds; wall-clock times are milliseconds since the Unix epoch
// (UTC). Fields that did not change are not sent (proto3 `optional` presence). Entity ids are
// never 0, so an id field that is absent (0) means "none".
//
// Time: the server ticks `Welcome.tick_rate` times a second; each TickUpdate describes one tick
// and positions in it are where entities stand at the end of that tick. An entity's velocity is
// its last move delta times tick_rate (per second); to draw smoothly, render about one tick
// behind and interpolate between the last two positions, or extrapolate with that velocity.
// Pong.server_time_ms and Welcome.server_time_ms let a client estimate the clock offset
// (server_time_ms - (send + receive) / 2 of its own clock).
//
// Activity: only MoveInput, SkillInput and Chat count as activity for the idle timeout
// (limits.idle_timeout_seconds, 60 s by default): a client that only pings is kicked with Kick
// "idle". Ping measures latency; it does not keep an AFK character in the world.
//
// DO NOT RENUMBER: field numbers are on the wire. Remove a field by reserving its number.

// @generated by protoc-gen-es v2.17.0 with parameter "target=ts,import_extension=none"
// @generated from file zone.proto (package zs.zone.v1, syntax proto3)
/* eslint-disable */

import type { GenEnum, GenFile, GenMessage } from "@bufbuild/protobuf/codegenv2";
import { enumDesc, fileDesc, messageDesc } from "@bufbuild/protobuf/codegenv2";
import type { Message } from "@bufbuild/protobuf";

/**
 * Describes the file zone.proto.
 */
export const file_zone: GenFile = /*@__PURE__*/
  fileDesc("Cgp6b25lLnByb3RvEgp6cy56b25lLnYxIvUBCg1DbGllbnRNZXNzYWdlEiIKBWhlbGxvGAEgASgLMhEuenMuem9uZS52MS5IZWxsb0gAEiUKBG1vdmUYAiABKAsyFS56cy56b25lLnYxLk1vdmVJbnB1dEgAEicKBXNraWxsGAMgASgLMhYuenMuem9uZS52MS5Ta2lsbElucHV0SAASIAoEcGluZxgEIAEoCzIQLnpzLnpvbmUudjEuUGluZ0gAEiQKBmxvZ291dBgFIAEoCzISLnpzLnpvbmUudjEuTG9nb3V0SAASIAoEY2hhdBgGIAEoCzIQLnpzLnpvbmUudjEuQ2hhdEgAQgYKBGtpbmQiWgoFSGVsbG8SGAoQcHJvdG9jb2xfdmVyc2lvbhgBIAEoDRITCgtwbGF5ZXJfbmFtZRgCIAEoCRISCgphdXRoX3Rva2VuGAMgASgJEg4KBnRpY2tldBgEIAEoCSJCCglNb3ZlSW5wdXQSCwoDc2VxGAEgASgNEhMKC2RpcmVjdGlvbl94GAIgASgCEhMKC2RpcmVjdGlvbl95GAMgASgCIl8KClNraWxsSW5wdXQSCwoDc2VxGAEgASgNEhAKCHNraWxsX2lkGAIgASgNEg4KBmZhY2luZxgDIAEoDRIQCgh0YXJnZXRfeBgEIAEoERIQCgh0YXJnZXRfeRgFIAEoESIbCgRQaW5nEhMKC2NsaWVudF90aW1lGAEgASgEIggKBkxvZ291dCJXCgRDaGF0EgsKA3NlcRgBIAEoDRIoCgdjaGFubmVsGAIgASgOMhcuenMuem9uZS52MS5DaGF0Q2hhbm5lbBIMCgR0ZXh0GAMgASgJEgoKAnRvGAQgASgJIqYCCg1TZXJ2ZXJNZXNzYWdlEiYKB3dlbGNvbWUYASABKAsyEy56cy56b25lLnYxLldlbGNvbWVIABImCgR0aWNrGAIgASgLMhYuenMuem9uZS52MS5UaWNrVXBkYXRlSAASLwoMem9uZV9jaGFuZ2VkGAMgASgLMhcuenMuem9uZS52MS5ab25lQ2hhbmdlZEgAEiAKBHBvbmcYBCABKAsyEC56cy56b25lLnYxLlBvbmdIABIiCgVlcnJvchgFIAEoCzIRLnpzLnpvbmUudjEuRXJyb3JIABIgCgRraWNrGAYgASgLMhAuenMuem9uZS52MS5LaWNrSAASJAoGbm90aWNlGAcgASgLMhIuenMuem9uZS52MS5Ob3RpY2VIAEIGCgRraW5kIpoDCgdXZWxjb21lEhgKEHByb3RvY29sX3ZlcnNpb24YASABKA0SEQoJZW50aXR5X2lkGAIgASgNEg8KB3pvbmVfaWQYAyABKA0SEQoJem9uZV9uYW1lGAQgASgJEhIKCnpvbmVfbWluX3gYBSABKBESEgoKem9uZV9taW5feRgGIAEoERISCgp6b25lX21heF94GAcgASgREhIKCnpvbmVfbWF4X3kYCCABKBESEQoJdGlja19yYXRlGAkgASgNEhMKC3NlcnZlcl90aWNrGAogASgEEgkKAXgYCyABKBESCQoBeRgMIAEoERImCgN5b3UYDSABKAsyGS56cy56b25lLnYxLkNoYXJhY3RlckluZm8SNgoRbW9uc3Rlcl90ZW1wbGF0ZXMYDiADKAsyGy56cy56b25lLnYxLk1vbnN0ZXJUZW1wbGF0ZRIWCg5zZXJ2ZXJfdGltZV9tcxgPIAEoBBITCgtwbGF5ZXJfbmFtZRgQIAEoCRITCgtjaGF0X3JhZGl1cxgRIAEoDRIOCgZmYWNpbmcYEiABKA0i8QEKCVNraWxsSW5mbxIKCgJpZBgBIAEoDRIMCgRuYW1lGAIgASgJEiUKBXNoYXBlGAMgASgOMhYuenMuem9uZS52MS5Ta2lsbFNoYXBlEg0KBXJhbmdlGAQgASgNEg4KBnJhZGl1cxgFIAEoDRISCgpoYWxmX2FuZ2xlGAYgASgNEg0KBXdpZHRoGAcgASgNEhIKCmNhc3RfcmFuZ2UYCCABKA0SEwoLY29vbGRvd25fbXMYCSABKA0SDgoGZGFtYWdlGAogASgFEhMKC21heF90YXJnZXRzGAsgASgNEhMKC3JlYWR5X2luX21zGAwgASgNIr8BCg1DaGFyYWN0ZXJJbmZvEgoKAmhwGAEgASgFEg4KBm1heF9ocBgCIAEoBRIOCgZyYWRpdXMYAyABKA0SDQoFc3BlZWQYBCABKA0SEwoLdmlld19yYWRpdXMYBSABKA0SJQoGc2tpbGxzGAYgAygLMhUuenMuem9uZS52MS5Ta2lsbEluZm8SEgoKcmVzcGF3bl9tcxgHIAEoDRIMCgRkZWFkGAggASgIEhUKDXJlc3Bhd25faW5fbXMYCSABKA0iSwoPTW9uc3RlclRlbXBsYXRlEgoKAmlkGAEgASgNEgwKBG5hbWUYAiABKAkSDgoGcmFkaXVzGAMgASgNEg4KBm1heF9ocBgEIAEoBSLDAQoLRW50aXR5RW50ZXISCgoCaWQYASABKA0SJAoEa2luZBgCIAEoDjIWLnpzLnpvbmUudjEuRW50aXR5S2luZBITCgt0ZW1wbGF0ZV9pZBgDIAEoDRIJCgF4GAQgASgREgkKAXkYBSABKBESDgoGZmFjaW5nGAYgASgNEg4KBnJhZGl1cxgHIAEoDRIKCgJocBgIIAEoBRIOCgZtYXhfaHAYCSABKAUSDQoFYWxpdmUYCiABKAgSDAoEbmFtZRgLIAEoCSKcAQoMRW50aXR5VXBkYXRlEgoKAmlkGAEgASgNEg4KAXgYAiABKBFIAIgBARIOCgF5GAMgASgRSAGIAQESEwoGZmFjaW5nGAQgASgNSAKIAQESDwoCaHAYBSABKAVIA4gBARISCgVhbGl2ZRgGIAEoCEgEiAEBQgQKAl94QgQKAl95QgkKB19mYWNpbmdCBQoDX2hwQggKBl9hbGl2ZSI3CglIaXRUYXJnZXQSCgoCaWQYASABKA0SDgoGZGFtYWdlGAIgASgFEg4KBmtpbGxlZBgDIAEoCCKKAQoISGl0RXZlbnQSEAoIYXR0YWNrZXIYASABKA0SEAoIc2tpbGxfaWQYAiABKA0SEAoIb3JpZ2luX3gYAyABKBESEAoIb3JpZ2luX3kYBCABKBESDgoGZmFjaW5nGAUgASgNEiYKB3RhcmdldHMYBiADKAsyFS56cy56b25lLnYxLkhpdFRhcmdldCLUAwoKVGlja1VwZGF0ZRIMCgR0aWNrGAEgASgEEhYKDmxhc3RfaW5wdXRfc2VxGAIgASgNEiYKBHNlbGYYAyABKAsyGC56cy56b25lLnYxLkVudGl0eVVwZGF0ZRIoCgdlbnRlcmVkGAQgAygLMhcuenMuem9uZS52MS5FbnRpdHlFbnRlchIpCgd1cGRhdGVkGAUgAygLMhguenMuem9uZS52MS5FbnRpdHlVcGRhdGUSDAoEbGVmdBgGIAMoDRIiCgRoaXRzGAcgAygLMhQuenMuem9uZS52MS5IaXRFdmVudBIOCgZyZXN5bmMYCCABKAgSEQoJbW92ZWRfaWRzGAkgAygNEhQKDG1vdmVkX2RlbHRhcxgKIAMoERInCgVjcm93ZBgLIAEoCzIYLnpzLnpvbmUudjEuQ3Jvd2RTdW1tYXJ5EiIKBGNoYXQYDCADKAsyFC56cy56b25lLnYxLkNoYXRMaW5lEigKB3Jlc3VsdHMYDSADKAsyFy56cy56b25lLnYxLklucHV0UmVzdWx0EhIKCnR1cm5lZF9pZHMYDiADKA0SFQoNdHVybmVkX2RlbHRhcxgPIAMoERIWCg50dXJuZWRfZmFjaW5ncxgQIAMoDSJyCghDaGF0TGluZRIoCgdjaGFubmVsGAEgASgOMhcuenMuem9uZS52MS5DaGF0Q2hhbm5lbBIPCgdmcm9tX2lkGAIgASgNEhEKCWZyb21fbmFtZRgDIAEoCRIMCgR0ZXh0GAQgASgJEgoKAnRvGAUgASgJImUKC0lucHV0UmVzdWx0EiMKBGtpbmQYASABKA4yFS56cy56b25lLnYxLklucHV0S2luZBILCgNzZXEYAiABKA0SJAoHb3V0Y29tZRgDIAEoDjITLnpzLnpvbmUudjEuT3V0Y29tZSJyCgxDcm93ZFN1bW1hcnkSEAoIY2VudGVyX3gYASABKBESEAoIY2VudGVyX3kYAiABKBESEQoJY2VsbF9zaXplGAMgASgNEgwKBGdyaWQYBCABKA0SDgoGY291bnRzGAUgAygNEg0KBXRvdGFsGAYgASgNIoACCgtab25lQ2hhbmdlZBIPCgd6b25lX2lkGAEgASgNEhEKCXpvbmVfbmFtZRgCIAEoCRISCgp6b25lX21pbl94GAMgASgREhIKCnpvbmVfbWluX3kYBCABKBESEgoKem9uZV9tYXhfeBgFIAEoERISCgp6b25lX21heF95GAYgASgREgkKAXgYByABKBESCQoBeRgIIAEoERITCgtjaGF0X3JhZGl1cxgJIAEoDRITCgt2aWV3X3JhZGl1cxgKIAEoDRIWCg5zZXJ2ZXJfYWRkcmVzcxgLIAEoCRIOCgZ0aWNrZXQYDCABKAkSFQoNd2Vic29ja2V0X3VybBgNIAEoCSI8CgZOb3RpY2USJAoEY29kZRgBIAEoDjIWLnpzLnpvbmUudjEuTm90aWNlQ29kZRIMCgR0ZXh0GAIgASgJIkgKBFBvbmcSEwoLY2xpZW50X3RpbWUYASABKAQSEwoLc2VydmVyX3RpY2sYAiABKAQSFgoOc2VydmVyX3RpbWVfbXMYAyABKAQiPQoFRXJyb3ISIwoEY29kZRgBIAEoDjIVLnpzLnpvbmUudjEuRXJyb3JDb2RlEg8KB21lc3NhZ2UYAiABKAkiFgoES2ljaxIOCgZyZWFzb24YASABKAkqcgoLQ2hhdENoYW5uZWwSHAoYQ0hBVF9DSEFOTkVMX1VOU1BFQ0lGSUVEEAASFAoQQ0hBVF9DSEFOTkVMX1NBWRABEhUKEUNIQVRfQ0hBTk5FTF9aT05FEAISGAoUQ0hBVF9DSEFOTkVMX1dISVNQRVIQAypsCgpTa2lsbFNoYXBlEhsKF1NLSUxMX1NIQVBFX1VOU1BFQ0lGSUVEEAASEwoPU0tJTExfU0hBUEVfQVJDEAESFgoSU0tJTExfU0hBUEVfQ0lSQ0xFEAISFAoQU0tJTExfU0hBUEVfTElORRADKj0KCkVudGl0eUtpbmQSFgoSRU5USVRZX0tJTkRfUExBWUVSEAASFwoTRU5USVRZX0tJTkRfTU9OU1RFUhABKmcKCUlucHV0S2luZBIaChZJTlBVVF9LSU5EX1VOU1BFQ0lGSUVEEAASEwoPSU5QVVRfS0lORF9NT1ZFEAESFAoQSU5QVVRfS0lORF9TS0lMTBACEhMKD0lOUFVUX0tJTkRfQ0hBVBADKscBCgdPdXRjb21lEhcKE09VVENPTUVfVU5TUEVDSUZJRUQQABIUChBPVVRDT01FX0FDQ0VQVEVEEAESFAoQT1VUQ09NRV9DT09MRE9XThACEhAKDE9VVENPTUVfREVBRBADEhkKFU9VVENPTUVfVU5LTk9XTl9TS0lMTBAEEhgKFE9VVENPTUVfUkFURV9MSU1JVEVEEAUSGgoWT1VUQ09NRV9OT19TVUNIX1BMQVlFUhAGEhQKEE9VVENPTUVfQkFEX1RFWFQQBypLCgpOb3RpY2VDb2RlEhsKF05PVElDRV9DT0RFX1VOU1BFQ0lGSUVEEAASIAocTk9USUNFX0NPREVfWk9ORV9VTkFWQUlMQUJMRRABKooDCglFcnJvckNvZGUSGgoWRVJST1JfQ09ERV9VTlNQRUNJRklFRBAAEh8KG0VSUk9SX0NPREVfUFJPVE9DT0xfVkVSU0lPThABEhgKFEVSUk9SX0NPREVfQkFEX0ZSQU1FEAISHAoYRVJST1JfQ09ERV9OT1RfTE9HR0VEX0lOEAMSIAocRVJST1JfQ09ERV9BTFJFQURZX0xPR0dFRF9JThAEEhgKFEVSUk9SX0NPREVfQkFEX1ZBTFVFEAUSGwoXRVJST1JfQ09ERV9SQVRFX0xJTUlURUQQBhIaChZFUlJPUl9DT0RFX1NFUlZFUl9GVUxMEAcSFwoTRVJST1JfQ09ERV9CQURfTkFNRRAIEhoKFkVSUk9SX0NPREVfQVVUSF9GQUlMRUQQCRIiCh5FUlJPUl9DT0RFX1NUT1JBR0VfVU5BVkFJTEFCTEUQChIZChVFUlJPUl9DT0RFX0JBRF9USUNLRVQQCxIfChtFUlJPUl9DT0RFX1pPTkVfVU5BVkFJTEFCTEUQDEICSAFiBnByb3RvMw");

/**
 * @generated from message zs.zone.v1.ClientMessage
 */
export type ClientMessage = Message<"zs.zone.v1.ClientMessage"> & {
  /**
   * @generated from oneof zs.zone.v1.ClientMessage.kind
   */
  kind: {
    /**
     * @generated from field: zs.zone.v1.Hello hello = 1;
     */
    value: Hello;
    case: "hello";
  } | {
    /**
     * @generated from field: zs.zone.v1.MoveInput move = 2;
     */
    value: MoveInput;
    case: "move";
  } | {
    /**
     * @generated from field: zs.zone.v1.SkillInput skill = 3;
     */
    value: SkillInput;
    case: "skill";
  } | {
    /**
     * @generated from field: zs.zone.v1.Ping ping = 4;
     */
    value: Ping;
    case: "ping";
  } | {
    /**
     * @generated from field: zs.zone.v1.Logout logout = 5;
     */
    value: Logout;
    case: "logout";
  } | {
    /**
     * @generated from field: zs.zone.v1.Chat chat = 6;
     */
    value: Chat;
    case: "chat";
  } | { case: undefined; value?: undefined };
};

/**
 * Describes the message zs.zone.v1.ClientMessage.
 * Use `create(ClientMessageSchema)` to create a new message.
 */
export const ClientMessageSchema: GenMessage<ClientMessage> = /*@__PURE__*/
  messageDesc(file_zone, 0);

/**
 * First message on a connection. A protocol_version this server does not speak (it speaks 3
 * to 10) gets an Error (PROTOCOL_VERSION) and a close.
 *
 * Who you are depends on the server's `auth.mode`:
 * - `none` (development): player_name is your character; names are unique among the players
 *   online, and logging in with a name already online takes that character over (the other
 *   connection gets Kick "logged_in_elsewhere").
 * - `token`: auth_token must be a token minted by the studio's login service (format:
 *   docs/accounts.md); it names your account and character, and player_name is ignored. A token
 *   logs in once and only before it expires. Any problem with it gets Error AUTH_FAILED
 *   (deliberately without saying what was wrong) and a close; so does a Hello too large for a
 *   frame (limits.max_frame_bytes), which in this mode can only be an oversized token. One
 *   session per account: a second login for an account online takes the character over (the
 *   first gets Kick "logged_in_elsewhere").
 * Your character is loaded from storage: if the server cannot read it just now, Error
 * STORAGE_UNAVAILABLE and a close (try again later); you never get a fresh character over an
 * existing one. Inputs sent behind the Hello before the Welcome (even in the same TCP write) are
 * applied once the character is in the world, in the order sent (the first 64; more are
 * refused as the server being busy); if the login fails or is routed to another server, they go
 * with the closed connection.
 *
 * @generated from message zs.zone.v1.Hello
 */
export type Hello = Message<"zs.zone.v1.Hello"> & {
  /**
   * this file: 10 (3 to 9 are still accepted)
   *
   * @generated from field: uint32 protocol_version = 1;
   */
  protocolVersion: number;

  /**
   * mode none: the character's name, by the Unicode rules
   *
   * @generated from field: string player_name = 2;
   */
  playerName: string;

  /**
   * (docs/protocol.md#names): normalised to NFC first (your
   * Welcome.player_name is that form), then 1..32 bytes; no
   * control, default-ignorable, format, unassigned or
   * noncharacter code point; single U+0020 spaces between words
   * only; letters and digits of the UTS #39 identifier profile,
   * scripts mixed no more than "moderately restrictive" allows.
   * Else Error BAD_NAME saying which rule failed, as it does for
   * a name that looks like (confusable skeleton) another
   * character's, online or stored. Mode token: ignored (the
   * token's name obeys the same rules).
   *
   * mode token: the login token (at most 512 bytes); mode none:
   *
   * @generated from field: string auth_token = 3;
   */
  authToken: string;

  /**
   * ignored
   *
   * v5: a hand-off ticket from ZoneChanged.ticket: you arrive as
   *
   * @generated from field: string ticket = 4;
   */
  ticket: string;
};

/**
 * Describes the message zs.zone.v1.Hello.
 * Use `create(HelloSchema)` to create a new message.
 */
export const HelloSchema: GenMessage<Hello> = /*@__PURE__*/
  messageDesc(file_zone, 1);

/**
 * Move in `direction` until told otherwise; (0, 0) stops. The server normalises any finite
 * direction (length does not matter, however large) and moves at most the player's speed per
 * tick; NaN or infinite components get Error BAD_VALUE and a close. Refused (TickUpdate.results)
 * while dead. Accepted moves are acknowledged through TickUpdate.last_input_seq only (which
 * counts refused ones too, see there).
 *
 * @generated from message zs.zone.v1.MoveInput
 */
export type MoveInput = Message<"zs.zone.v1.MoveInput"> & {
  /**
   * client input sequence number, echoed in TickUpdate.last_input_seq;
   *
   * @generated from field: uint32 seq = 1;
   */
  seq: number;

  /**
   * wraps from 2^32-1 to 0 (serial-number order, RFC 1982)
   *
   * @generated from field: float direction_x = 2;
   */
  directionX: number;

  /**
   * @generated from field: float direction_y = 3;
   */
  directionY: number;
};

/**
 * Describes the message zs.zone.v1.MoveInput.
 * Use `create(MoveInputSchema)` to create a new message.
 */
export const MoveInputSchema: GenMessage<MoveInput> = /*@__PURE__*/
  messageDesc(file_zone, 2);

/**
 * Use a skill facing `facing`; target_* is the ground point for ground-targeted skills (pulled
 * back to the skill's cast_range, and into the zone). Every SkillInput gets a TickUpdate.results
 * entry: ACCEPTED, or refused (cooldown, dead, unknown skill, rate limited).
 *
 * Targeting: a skill hits at most its max_targets entities whose hitbox circle touches its
 * shape, nearest first by distance from the shape's origin to the hitbox's surface (centre
 * distance minus radius; ties by id). Arc and circle shapes start at the caster's centre (a
 * ground circle at the ground point); a line starts at the caster's front (centre + radius
 * along `facing`), so nothing behind the caster is hit.
 *
 * @generated from message zs.zone.v1.SkillInput
 */
export type SkillInput = Message<"zs.zone.v1.SkillInput"> & {
  /**
   * @generated from field: uint32 seq = 1;
   */
  seq: number;

  /**
   * @generated from field: uint32 skill_id = 2;
   */
  skillId: number;

  /**
   * 1/65536 turn
   *
   * @generated from field: uint32 facing = 3;
   */
  facing: number;

  /**
   * centimetres
   *
   * @generated from field: sint32 target_x = 4;
   */
  targetX: number;

  /**
   * @generated from field: sint32 target_y = 5;
   */
  targetY: number;
};

/**
 * Describes the message zs.zone.v1.SkillInput.
 * Use `create(SkillInputSchema)` to create a new message.
 */
export const SkillInputSchema: GenMessage<SkillInput> = /*@__PURE__*/
  messageDesc(file_zone, 3);

/**
 * @generated from message zs.zone.v1.Ping
 */
export type Ping = Message<"zs.zone.v1.Ping"> & {
  /**
   * opaque to the server, echoed in Pong
   *
   * @generated from field: uint64 client_time = 1;
   */
  clientTime: bigint;
};

/**
 * Describes the message zs.zone.v1.Ping.
 * Use `create(PingSchema)` to create a new message.
 */
export const PingSchema: GenMessage<Ping> = /*@__PURE__*/
  messageDesc(file_zone, 4);

/**
 * Leave the world: answered with Kick "logout", then the server closes the connection.
 *
 * @generated from message zs.zone.v1.Logout
 */
export type Logout = Message<"zs.zone.v1.Logout"> & {
};

/**
 * Describes the message zs.zone.v1.Logout.
 * Use `create(LogoutSchema)` to create a new message.
 */
export const LogoutSchema: GenMessage<Logout> = /*@__PURE__*/
  messageDesc(file_zone, 5);

/**
 * Say something. Delivered inside the next TickUpdate (`chat`) of each recipient. Rate limited
 * (limits.chat_rate per second; excess refused with RATE_LIMITED, sustained flooding kicked).
 * `text` is 1..256 bytes of UTF-8 without control characters: else refused with BAD_TEXT.
 *
 * @generated from message zs.zone.v1.Chat
 */
export type Chat = Message<"zs.zone.v1.Chat"> & {
  /**
   * echoed in TickUpdate.results; its own sequence, apart from moves and skills
   *
   * @generated from field: uint32 seq = 1;
   */
  seq: number;

  /**
   * @generated from field: zs.zone.v1.ChatChannel channel = 2;
   */
  channel: ChatChannel;

  /**
   * @generated from field: string text = 3;
   */
  text: string;

  /**
   * WHISPER: the recipient's player name (else NO_SUCH_PLAYER)
   *
   * @generated from field: string to = 4;
   */
  to: string;
};

/**
 * Describes the message zs.zone.v1.Chat.
 * Use `create(ChatSchema)` to create a new message.
 */
export const ChatSchema: GenMessage<Chat> = /*@__PURE__*/
  messageDesc(file_zone, 6);

/**
 * @generated from message zs.zone.v1.ServerMessage
 */
export type ServerMessage = Message<"zs.zone.v1.ServerMessage"> & {
  /**
   * @generated from oneof zs.zone.v1.ServerMessage.kind
   */
  kind: {
    /**
     * @generated from field: zs.zone.v1.Welcome welcome = 1;
     */
    value: Welcome;
    case: "welcome";
  } | {
    /**
     * @generated from field: zs.zone.v1.TickUpdate tick = 2;
     */
    value: TickUpdate;
    case: "tick";
  } | {
    /**
     * @generated from field: zs.zone.v1.ZoneChanged zone_changed = 3;
     */
    value: ZoneChanged;
    case: "zoneChanged";
  } | {
    /**
     * @generated from field: zs.zone.v1.Pong pong = 4;
     */
    value: Pong;
    case: "pong";
  } | {
    /**
     * @generated from field: zs.zone.v1.Error error = 5;
     */
    value: Error;
    case: "error";
  } | {
    /**
     * @generated from field: zs.zone.v1.Kick kick = 6;
     */
    value: Kick;
    case: "kick";
  } | {
    /**
     * v5
     *
     * @generated from field: zs.zone.v1.Notice notice = 7;
     */
    value: Notice;
    case: "notice";
  } | { case: undefined; value?: undefined };
};

/**
 * Describes the message zs.zone.v1.ServerMessage.
 * Use `create(ServerMessageSchema)` to create a new message.
 */
export const ServerMessageSchema: GenMessage<ServerMessage> = /*@__PURE__*/
  messageDesc(file_zone, 7);

/**
 * @generated from message zs.zone.v1.Welcome
 */
export type Welcome = Message<"zs.zone.v1.Welcome"> & {
  /**
   * @generated from field: uint32 protocol_version = 1;
   */
  protocolVersion: number;

  /**
   * your entity
   *
   * @generated from field: uint32 entity_id = 2;
   */
  entityId: number;

  /**
   * @generated from field: uint32 zone_id = 3;
   */
  zoneId: number;

  /**
   * @generated from field: string zone_name = 4;
   */
  zoneName: string;

  /**
   * zone bounds, centimetres
   *
   * @generated from field: sint32 zone_min_x = 5;
   */
  zoneMinX: number;

  /**
   * @generated from field: sint32 zone_min_y = 6;
   */
  zoneMinY: number;

  /**
   * @generated from field: sint32 zone_max_x = 7;
   */
  zoneMaxX: number;

  /**
   * @generated from field: sint32 zone_max_y = 8;
   */
  zoneMaxY: number;

  /**
   * ticks per second: one TickUpdate every 1000 / tick_rate ms
   *
   * @generated from field: uint32 tick_rate = 9;
   */
  tickRate: number;

  /**
   * @generated from field: uint64 server_tick = 10;
   */
  serverTick: bigint;

  /**
   * where you start, centimetres
   *
   * @generated from field: sint32 x = 11;
   */
  x: number;

  /**
   * @generated from field: sint32 y = 12;
   */
  y: number;

  /**
   * your character's stats and skills
   *
   * @generated from field: zs.zone.v1.CharacterInfo you = 13;
   */
  you?: CharacterInfo | undefined;

  /**
   * names and sizes of EntityEnter.template_id
   *
   * @generated from field: repeated zs.zone.v1.MonsterTemplate monster_templates = 14;
   */
  monsterTemplates: MonsterTemplate[];

  /**
   * the server's wall clock when it sent this
   *
   * @generated from field: uint64 server_time_ms = 15;
   */
  serverTimeMs: bigint;

  /**
   * your name as others see it
   *
   * @generated from field: string player_name = 16;
   */
  playerName: string;

  /**
   * centimetres: who hears your `say` (see Chat)
   *
   * @generated from field: uint32 chat_radius = 17;
   */
  chatRadius: number;

  /**
   * v4: where you face, 1/65536 turn
   *
   * @generated from field: uint32 facing = 18;
   */
  facing: number;
};

/**
 * Describes the message zs.zone.v1.Welcome.
 * Use `create(WelcomeSchema)` to create a new message.
 */
export const WelcomeSchema: GenMessage<Welcome> = /*@__PURE__*/
  messageDesc(file_zone, 8);

/**
 * @generated from message zs.zone.v1.SkillInfo
 */
export type SkillInfo = Message<"zs.zone.v1.SkillInfo"> & {
  /**
   * SkillInput.skill_id
   *
   * @generated from field: uint32 id = 1;
   */
  id: number;

  /**
   * @generated from field: string name = 2;
   */
  name: string;

  /**
   * @generated from field: zs.zone.v1.SkillShape shape = 3;
   */
  shape: SkillShape;

  /**
   * centimetres (arc, line)
   *
   * @generated from field: uint32 range = 4;
   */
  range: number;

  /**
   * centimetres (circle)
   *
   * @generated from field: uint32 radius = 5;
   */
  radius: number;

  /**
   * 1/65536 turn (arc)
   *
   * @generated from field: uint32 half_angle = 6;
   */
  halfAngle: number;

  /**
   * centimetres (line)
   *
   * @generated from field: uint32 width = 7;
   */
  width: number;

  /**
   * centimetres; 0: centred on the caster
   *
   * @generated from field: uint32 cast_range = 8;
   */
  castRange: number;

  /**
   * between two uses
   *
   * @generated from field: uint32 cooldown_ms = 9;
   */
  cooldownMs: number;

  /**
   * per target hit (less when the target has fewer hp left)
   *
   * @generated from field: int32 damage = 10;
   */
  damage: number;

  /**
   * @generated from field: uint32 max_targets = 11;
   */
  maxTargets: number;

  /**
   * v4, Welcome only: this skill is cooling down for this much longer
   *
   * @generated from field: uint32 ready_in_ms = 12;
   */
  readyInMs: number;
};

/**
 * Describes the message zs.zone.v1.SkillInfo.
 * Use `create(SkillInfoSchema)` to create a new message.
 */
export const SkillInfoSchema: GenMessage<SkillInfo> = /*@__PURE__*/
  messageDesc(file_zone, 9);

/**
 * @generated from message zs.zone.v1.CharacterInfo
 */
export type CharacterInfo = Message<"zs.zone.v1.CharacterInfo"> & {
  /**
   * @generated from field: int32 hp = 1;
   */
  hp: number;

  /**
   * @generated from field: int32 max_hp = 2;
   */
  maxHp: number;

  /**
   * hitbox, centimetres
   *
   * @generated from field: uint32 radius = 3;
   */
  radius: number;

  /**
   * centimetres per second
   *
   * @generated from field: uint32 speed = 4;
   */
  speed: number;

  /**
   * centimetres: entities farther than this are not sent to you
   *
   * @generated from field: uint32 view_radius = 5;
   */
  viewRadius: number;

  /**
   * @generated from field: repeated zs.zone.v1.SkillInfo skills = 6;
   */
  skills: SkillInfo[];

  /**
   * after death, back at the zone's spawn point
   *
   * @generated from field: uint32 respawn_ms = 7;
   */
  respawnMs: number;

  /**
   * v4: you log in dead (you logged out dead) ...
   *
   * @generated from field: bool dead = 8;
   */
  dead: boolean;

  /**
   * ... and respawn at the zone's spawn point this much later
   *
   * @generated from field: uint32 respawn_in_ms = 9;
   */
  respawnInMs: number;
};

/**
 * Describes the message zs.zone.v1.CharacterInfo.
 * Use `create(CharacterInfoSchema)` to create a new message.
 */
export const CharacterInfoSchema: GenMessage<CharacterInfo> = /*@__PURE__*/
  messageDesc(file_zone, 10);

/**
 * @generated from message zs.zone.v1.MonsterTemplate
 */
export type MonsterTemplate = Message<"zs.zone.v1.MonsterTemplate"> & {
  /**
   * EntityEnter.template_id
   *
   * @generated from field: uint32 id = 1;
   */
  id: number;

  /**
   * @generated from field: string name = 2;
   */
  name: string;

  /**
   * hitbox, centimetres
   *
   * @generated from field: uint32 radius = 3;
   */
  radius: number;

  /**
   * @generated from field: int32 max_hp = 4;
   */
  maxHp: number;
};

/**
 * Describes the message zs.zone.v1.MonsterTemplate.
 * Use `create(MonsterTemplateSchema)` to create a new message.
 */
export const MonsterTemplateSchema: GenMessage<MonsterTemplate> = /*@__PURE__*/
  messageDesc(file_zone, 11);

/**
 * An entity's full state, sent when it enters your view. "Your view" (protocol 2) is the set the
 * server has chosen to send you: the nearest entities within the zone's view radius (every tick;
 * v8: in a zone with a rank floor, any nearer than it count as equally near, by id; in a zone
 * with a near band, one of them stays among them until another is that many metres nearer),
 * entities relevant to you (your attacker, your targets, monsters hunting you: every tick) and up
 * to a budget of farther ones (re-ranked and updated every mid period, 0.2 s by default, and
 * never more than the zone's max_staleness, 1 s by default, behind). An entity leaves
 * (TickUpdate.left) when it goes beyond the view radius plus a hysteresis band, or when nearer
 * ones crowd it out of the budget (again with a margin, so nothing flickers at the edges); for
 * the farther ones this is decided once per mid period, so a far entity may be reported as left
 * up to one mid period after it walked out; an entity in the hysteresis band is one of the
 * farther ones (updated at the mid rate) even when nothing else is in view. The byte budget
 * bounds the farther ones' updates and (v8) their entries: a farther one enters when the budget
 * pays for its whole state, nearest first (at least one per mid period), so in a crowd that
 * shuffles some wait one mid period or more (they are counted in the crowd summary meanwhile).
 * The nearest ones and the relevant ones enter at once, and a frame for a client that knows
 * nothing in the zone (after a login, a zone change or a resync, or once everything it knew
 * has left) carries everything the tiers hold, whatever its size.
 *
 * @generated from message zs.zone.v1.EntityEnter
 */
export type EntityEnter = Message<"zs.zone.v1.EntityEnter"> & {
  /**
   * @generated from field: uint32 id = 1;
   */
  id: number;

  /**
   * @generated from field: zs.zone.v1.EntityKind kind = 2;
   */
  kind: EntityKind;

  /**
   * monster template (config/monsters.yaml); 0 for players
   *
   * @generated from field: uint32 template_id = 3;
   */
  templateId: number;

  /**
   * centimetres
   *
   * @generated from field: sint32 x = 4;
   */
  x: number;

  /**
   * @generated from field: sint32 y = 5;
   */
  y: number;

  /**
   * 1/65536 turn
   *
   * @generated from field: uint32 facing = 6;
   */
  facing: number;

  /**
   * hitbox, centimetres
   *
   * @generated from field: uint32 radius = 7;
   */
  radius: number;

  /**
   * @generated from field: int32 hp = 8;
   */
  hp: number;

  /**
   * @generated from field: int32 max_hp = 9;
   */
  maxHp: number;

  /**
   * @generated from field: bool alive = 10;
   */
  alive: boolean;

  /**
   * players: their name (monsters: see Welcome.monster_templates)
   *
   * @generated from field: string name = 11;
   */
  name: string;
};

/**
 * Describes the message zs.zone.v1.EntityEnter.
 * Use `create(EntityEnterSchema)` to create a new message.
 */
export const EntityEnterSchema: GenMessage<EntityEnter> = /*@__PURE__*/
  messageDesc(file_zone, 12);

/**
 * The fields of a known entity that changed since the server last told you; absent fields did
 * not change. x and y here are absolute (centimetres).
 *
 * @generated from message zs.zone.v1.EntityUpdate
 */
export type EntityUpdate = Message<"zs.zone.v1.EntityUpdate"> & {
  /**
   * @generated from field: uint32 id = 1;
   */
  id: number;

  /**
   * @generated from field: optional sint32 x = 2;
   */
  x?: number | undefined;

  /**
   * @generated from field: optional sint32 y = 3;
   */
  y?: number | undefined;

  /**
   * @generated from field: optional uint32 facing = 4;
   */
  facing?: number | undefined;

  /**
   * @generated from field: optional int32 hp = 5;
   */
  hp?: number | undefined;

  /**
   * @generated from field: optional bool alive = 6;
   */
  alive?: boolean | undefined;
};

/**
 * Describes the message zs.zone.v1.EntityUpdate.
 * Use `create(EntityUpdateSchema)` to create a new message.
 */
export const EntityUpdateSchema: GenMessage<EntityUpdate> = /*@__PURE__*/
  messageDesc(file_zone, 13);

/**
 * @generated from message zs.zone.v1.HitTarget
 */
export type HitTarget = Message<"zs.zone.v1.HitTarget"> & {
  /**
   * @generated from field: uint32 id = 1;
   */
  id: number;

  /**
   * hp actually removed (at most the hp the target had left)
   *
   * @generated from field: int32 damage = 2;
   */
  damage: number;

  /**
   * @generated from field: bool killed = 3;
   */
  killed: boolean;
};

/**
 * Describes the message zs.zone.v1.HitTarget.
 * Use `create(HitTargetSchema)` to create a new message.
 */
export const HitTargetSchema: GenMessage<HitTarget> = /*@__PURE__*/
  messageDesc(file_zone, 14);

/**
 * A skill use you can see: you or an entity of your near tier is its attacker or one of its
 * targets (v7; see the history above).
 *
 * @generated from message zs.zone.v1.HitEvent
 */
export type HitEvent = Message<"zs.zone.v1.HitEvent"> & {
  /**
   * @generated from field: uint32 attacker = 1;
   */
  attacker: number;

  /**
   * @generated from field: uint32 skill_id = 2;
   */
  skillId: number;

  /**
   * centimetres: the shape's origin (SkillInput's targeting): the
   *
   * @generated from field: sint32 origin_x = 3;
   */
  originX: number;

  /**
   * caster's centre (arc), the ground point (ground circle), the caster's
   * front (line: centre + radius along `facing`)
   *
   * @generated from field: sint32 origin_y = 4;
   */
  originY: number;

  /**
   * @generated from field: uint32 facing = 5;
   */
  facing: number;

  /**
   * @generated from field: repeated zs.zone.v1.HitTarget targets = 6;
   */
  targets: HitTarget[];
};

/**
 * Describes the message zs.zone.v1.HitEvent.
 * Use `create(HitEventSchema)` to create a new message.
 */
export const HitEventSchema: GenMessage<HitEvent> = /*@__PURE__*/
  messageDesc(file_zone, 15);

/**
 * Exactly one per tick per client: everything that tick brought for you.
 *
 * @generated from message zs.zone.v1.TickUpdate
 */
export type TickUpdate = Message<"zs.zone.v1.TickUpdate"> & {
  /**
   * your zone's tick this frame describes; +1 per frame (v6:
   *
   * @generated from field: uint64 tick = 1;
   */
  tick: bigint;

  /**
   * a ZoneChanged restarts the count, see the history above)
   *
   * newest MoveInput/SkillInput seq the server has judged,
   *
   * @generated from field: uint32 last_input_seq = 2;
   */
  lastInputSeq: number;

  /**
   * in serial-number order (after 2^32-1 comes 0, which is
   * newer): applied or refused alike (COOLDOWN, DEAD,
   * UNKNOWN_SKILL, RATE_LIMITED; results says which), so a
   * client replaying its unacknowledged inputs can drop every
   * one up to it. Chat has its own sequence, not counted here.
   *
   * your own changed fields
   *
   * @generated from field: zs.zone.v1.EntityUpdate self = 3;
   */
  self?: EntityUpdate | undefined;

  /**
   * entities you are now sent, with their full state
   *
   * @generated from field: repeated zs.zone.v1.EntityEnter entered = 4;
   */
  entered: EntityEnter[];

  /**
   * known entities' changed fields, absolute values
   *
   * @generated from field: repeated zs.zone.v1.EntityUpdate updated = 5;
   */
  updated: EntityUpdate[];

  /**
   * ids that left your view
   *
   * @generated from field: repeated uint32 left = 6;
   */
  left: number[];

  /**
   * skill uses by or on you or an entity of your near tier
   *
   * @generated from field: repeated zs.zone.v1.HitEvent hits = 7;
   */
  hits: HitEvent[];

  /**
   * after a dropped backlog, a takeover or (v6) a ZoneChanged
   *
   * @generated from field: bool resync = 8;
   */
  resync: boolean;

  /**
   * on this server: forget what you knew; `entered` lists
   * everything known, and `tick` may jump
   * Entities whose only news is a move, as deltas from the position you already have for them
   * (the last one sent to you, by enter, update or an earlier delta). moved_ids holds ids in
   * ascending order, each written as the difference from the previous id in this list (the first
   * as the difference from 0), so id = running sum. moved_deltas holds two values per id, in the
   * same order: dx then dy, centimetres, to add to the position you have. A moved entity is
   * always one you know, and is never also listed in `updated` or `turned_ids` in the same tick.
   *
   * @generated from field: repeated uint32 moved_ids = 9;
   */
  movedIds: number[];

  /**
   * @generated from field: repeated sint32 moved_deltas = 10;
   */
  movedDeltas: number[];

  /**
   * about once a second: what is in view but not sent to you
   *
   * @generated from field: zs.zone.v1.CrowdSummary crowd = 11;
   */
  crowd?: CrowdSummary | undefined;

  /**
   * chat delivered to you this tick, in the order it was said
   *
   * @generated from field: repeated zs.zone.v1.ChatLine chat = 12;
   */
  chat: ChatLine[];

  /**
   * your inputs' outcomes (see InputResult)
   *
   * @generated from field: repeated zs.zone.v1.InputResult results = 13;
   */
  results: InputResult[];

  /**
   * v9: entities whose news is a move and a new facing (nothing else), written as `moved` is:
   * turned_ids ascending, each the difference from the previous one in this list (the first from
   * 0); turned_deltas two values per id, dx then dy (centimetres, to add to the position you
   * have, as moved_deltas); turned_facings one value per id, its new facing (absolute, 1/65536
   * turn, as EntityUpdate.facing). A turned entity is always one you know, and is never also
   * listed in `updated` or `moved_ids` in the same tick. A client of versions 3 to 8 is never
   * sent these: it gets such an entity in `updated` (absolute x, y and facing).
   *
   * @generated from field: repeated uint32 turned_ids = 14;
   */
  turnedIds: number[];

  /**
   * @generated from field: repeated sint32 turned_deltas = 15;
   */
  turnedDeltas: number[];

  /**
   * @generated from field: repeated uint32 turned_facings = 16;
   */
  turnedFacings: number[];
};

/**
 * Describes the message zs.zone.v1.TickUpdate.
 * Use `create(TickUpdateSchema)` to create a new message.
 */
export const TickUpdateSchema: GenMessage<TickUpdate> = /*@__PURE__*/
  messageDesc(file_zone, 16);

/**
 * @generated from message zs.zone.v1.ChatLine
 */
export type ChatLine = Message<"zs.zone.v1.ChatLine"> & {
  /**
   * @generated from field: zs.zone.v1.ChatChannel channel = 1;
   */
  channel: ChatChannel;

  /**
   * the speaker's entity
   *
   * @generated from field: uint32 from_id = 2;
   */
  fromId: number;

  /**
   * @generated from field: string from_name = 3;
   */
  fromName: string;

  /**
   * @generated from field: string text = 4;
   */
  text: string;

  /**
   * WHISPER: the recipient's name (so the sender's copy says to whom)
   *
   * @generated from field: string to = 5;
   */
  to: string;
};

/**
 * Describes the message zs.zone.v1.ChatLine.
 * Use `create(ChatLineSchema)` to create a new message.
 */
export const ChatLineSchema: GenMessage<ChatLine> = /*@__PURE__*/
  messageDesc(file_zone, 17);

/**
 * One input's outcome, in the TickUpdate of the tick that processed it: every SkillInput and
 * Chat gets one; a MoveInput only when refused (accepted moves are acknowledged through
 * last_input_seq). `seq` is the input's own seq (Chat has its own sequence).
 *
 * @generated from message zs.zone.v1.InputResult
 */
export type InputResult = Message<"zs.zone.v1.InputResult"> & {
  /**
   * @generated from field: zs.zone.v1.InputKind kind = 1;
   */
  kind: InputKind;

  /**
   * @generated from field: uint32 seq = 2;
   */
  seq: number;

  /**
   * @generated from field: zs.zone.v1.Outcome outcome = 3;
   */
  outcome: Outcome;
};

/**
 * Describes the message zs.zone.v1.InputResult.
 * Use `create(InputResultSchema)` to create a new message.
 */
export const InputResultSchema: GenMessage<InputResult> = /*@__PURE__*/
  messageDesc(file_zone, 18);

/**
 * Entities within your view radius that you are not being sent (beyond the interest budget), as
 * counts on a grid centred on you, so a client can draw a crowd it does not track.
 *
 * @generated from message zs.zone.v1.CrowdSummary
 */
export type CrowdSummary = Message<"zs.zone.v1.CrowdSummary"> & {
  /**
   * centimetres: the grid's centre (your position)
   *
   * @generated from field: sint32 center_x = 1;
   */
  centerX: number;

  /**
   * @generated from field: sint32 center_y = 2;
   */
  centerY: number;

  /**
   * centimetres: each cell's side
   *
   * @generated from field: uint32 cell_size = 3;
   */
  cellSize: number;

  /**
   * cells per side; the grid spans grid * cell_size
   *
   * @generated from field: uint32 grid = 4;
   */
  grid: number;

  /**
   * grid * grid counts, row by row from min y, each from min x
   *
   * @generated from field: repeated uint32 counts = 5;
   */
  counts: number[];

  /**
   * sum of counts
   *
   * @generated from field: uint32 total = 6;
   */
  total: number;
};

/**
 * Describes the message zs.zone.v1.CrowdSummary.
 * Use `create(CrowdSummarySchema)` to create a new message.
 */
export const CrowdSummarySchema: GenMessage<CrowdSummary> = /*@__PURE__*/
  messageDesc(file_zone, 19);

/**
 * You walked through a portal. Everything you knew has been sent as `left`; the next
 * TickUpdate introduces the new zone (v6: with `resync` set, counting that zone's ticks). You
 * arrive standing still: send a new MoveInput to go on.
 *
 * @generated from message zs.zone.v1.ZoneChanged
 */
export type ZoneChanged = Message<"zs.zone.v1.ZoneChanged"> & {
  /**
   * @generated from field: uint32 zone_id = 1;
   */
  zoneId: number;

  /**
   * @generated from field: string zone_name = 2;
   */
  zoneName: string;

  /**
   * @generated from field: sint32 zone_min_x = 3;
   */
  zoneMinX: number;

  /**
   * @generated from field: sint32 zone_min_y = 4;
   */
  zoneMinY: number;

  /**
   * @generated from field: sint32 zone_max_x = 5;
   */
  zoneMaxX: number;

  /**
   * @generated from field: sint32 zone_max_y = 6;
   */
  zoneMaxY: number;

  /**
   * where you arrive, centimetres
   *
   * @generated from field: sint32 x = 7;
   */
  x: number;

  /**
   * @generated from field: sint32 y = 8;
   */
  y: number;

  /**
   * centimetres: this zone's `say` radius
   *
   * @generated from field: uint32 chat_radius = 9;
   */
  chatRadius: number;

  /**
   * centimetres: this zone's view radius
   *
   * @generated from field: uint32 view_radius = 10;
   */
  viewRadius: number;

  /**
   * v5: set when the zone is hosted by another server. Nothing more comes on this connection
   * (the server closes it after a Kick "zone_handoff"): connect to server_address ("host:port")
   * and send Hello{protocol_version, ticket}; the Welcome there continues your character. Empty:
   * the zone is on this server and you stay connected.
   *
   * @generated from field: string server_address = 11;
   */
  serverAddress: string;

  /**
   * @generated from field: string ticket = 12;
   */
  ticket: string;

  /**
   * v10, with server_address: the same server's WebSocket door, a URL to open as it is
   * ("ws://host:port/", or "wss://..." behind a TLS proxy), offering the same subprotocols; send
   * Hello{ticket} there as on TCP. Empty: that server has no WebSocket door (a client on
   * WebSocket cannot follow; it may log in again later).
   *
   * @generated from field: string websocket_url = 13;
   */
  websocketUrl: string;
};

/**
 * Describes the message zs.zone.v1.ZoneChanged.
 * Use `create(ZoneChangedSchema)` to create a new message.
 */
export const ZoneChangedSchema: GenMessage<ZoneChanged> = /*@__PURE__*/
  messageDesc(file_zone, 20);

/**
 * @generated from message zs.zone.v1.Notice
 */
export type Notice = Message<"zs.zone.v1.Notice"> & {
  /**
   * @generated from field: zs.zone.v1.NoticeCode code = 1;
   */
  code: NoticeCode;

  /**
   * @generated from field: string text = 2;
   */
  text: string;
};

/**
 * Describes the message zs.zone.v1.Notice.
 * Use `create(NoticeSchema)` to create a new message.
 */
export const NoticeSchema: GenMessage<Notice> = /*@__PURE__*/
  messageDesc(file_zone, 21);

/**
 * @generated from message zs.zone.v1.Pong
 */
export type Pong = Message<"zs.zone.v1.Pong"> & {
  /**
   * @generated from field: uint64 client_time = 1;
   */
  clientTime: bigint;

  /**
   * the last tick your zone has run (v6; before: the server's)
   *
   * @generated from field: uint64 server_tick = 2;
   */
  serverTick: bigint;

  /**
   * the server's wall clock when it answered
   *
   * @generated from field: uint64 server_time_ms = 3;
   */
  serverTimeMs: bigint;
};

/**
 * Describes the message zs.zone.v1.Pong.
 * Use `create(PongSchema)` to create a new message.
 */
export const PongSchema: GenMessage<Pong> = /*@__PURE__*/
  messageDesc(file_zone, 22);

/**
 * @generated from message zs.zone.v1.Error
 */
export type Error = Message<"zs.zone.v1.Error"> & {
  /**
   * @generated from field: zs.zone.v1.ErrorCode code = 1;
   */
  code: ErrorCode;

  /**
   * @generated from field: string message = 2;
   */
  message: string;
};

/**
 * Describes the message zs.zone.v1.Error.
 * Use `create(ErrorSchema)` to create a new message.
 */
export const ErrorSchema: GenMessage<Error> = /*@__PURE__*/
  messageDesc(file_zone, 23);

/**
 * The server is closing this connection; `reason` says why: "logout" (you asked), "shutdown",
 * "idle" (no move, skill or chat for the idle timeout), "slow_reader" (you did not read what was
 * sent for limits.stall_timeout_seconds), "logged_in_elsewhere" (v4: a second login took your
 * character over), "zone_handoff" (v5: after a ZoneChanged with a server_address).
 *
 * @generated from message zs.zone.v1.Kick
 */
export type Kick = Message<"zs.zone.v1.Kick"> & {
  /**
   * @generated from field: string reason = 1;
   */
  reason: string;
};

/**
 * Describes the message zs.zone.v1.Kick.
 * Use `create(KickSchema)` to create a new message.
 */
export const KickSchema: GenMessage<Kick> = /*@__PURE__*/
  messageDesc(file_zone, 24);

/**
 * @generated from enum zs.zone.v1.ChatChannel
 */
export enum ChatChannel {
  /**
   * @generated from enum value: CHAT_CHANNEL_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * players whose hitbox is within the zone's chat_radius of your
   *
   * @generated from enum value: CHAT_CHANNEL_SAY = 1;
   */
  SAY = 1,

  /**
   * position (you included), at the end of the tick it is said
   *
   * every player in your zone
   *
   * @generated from enum value: CHAT_CHANNEL_ZONE = 2;
   */
  ZONE = 2,

  /**
   * one online player, by name (`to`); you get a copy
   *
   * @generated from enum value: CHAT_CHANNEL_WHISPER = 3;
   */
  WHISPER = 3,
}

/**
 * Describes the enum zs.zone.v1.ChatChannel.
 */
export const ChatChannelSchema: GenEnum<ChatChannel> = /*@__PURE__*/
  enumDesc(file_zone, 0);

/**
 * @generated from enum zs.zone.v1.SkillShape
 */
export enum SkillShape {
  /**
   * @generated from enum value: SKILL_SHAPE_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * a sector: `range` long, `half_angle` either side of facing
   *
   * @generated from enum value: SKILL_SHAPE_ARC = 1;
   */
  ARC = 1,

  /**
   * `radius` around the caster, or around the ground point when
   *
   * @generated from enum value: SKILL_SHAPE_CIRCLE = 2;
   */
  CIRCLE = 2,

  /**
   * cast_range > 0
   *
   * a capsule `range` long and `width` wide from the caster's front
   *
   * @generated from enum value: SKILL_SHAPE_LINE = 3;
   */
  LINE = 3,
}

/**
 * Describes the enum zs.zone.v1.SkillShape.
 */
export const SkillShapeSchema: GenEnum<SkillShape> = /*@__PURE__*/
  enumDesc(file_zone, 1);

/**
 * @generated from enum zs.zone.v1.EntityKind
 */
export enum EntityKind {
  /**
   * @generated from enum value: ENTITY_KIND_PLAYER = 0;
   */
  PLAYER = 0,

  /**
   * @generated from enum value: ENTITY_KIND_MONSTER = 1;
   */
  MONSTER = 1,
}

/**
 * Describes the enum zs.zone.v1.EntityKind.
 */
export const EntityKindSchema: GenEnum<EntityKind> = /*@__PURE__*/
  enumDesc(file_zone, 2);

/**
 * @generated from enum zs.zone.v1.InputKind
 */
export enum InputKind {
  /**
   * @generated from enum value: INPUT_KIND_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * @generated from enum value: INPUT_KIND_MOVE = 1;
   */
  MOVE = 1,

  /**
   * @generated from enum value: INPUT_KIND_SKILL = 2;
   */
  SKILL = 2,

  /**
   * @generated from enum value: INPUT_KIND_CHAT = 3;
   */
  CHAT = 3,
}

/**
 * Describes the enum zs.zone.v1.InputKind.
 */
export const InputKindSchema: GenEnum<InputKind> = /*@__PURE__*/
  enumDesc(file_zone, 3);

/**
 * @generated from enum zs.zone.v1.Outcome
 */
export enum Outcome {
  /**
   * @generated from enum value: OUTCOME_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * @generated from enum value: OUTCOME_ACCEPTED = 1;
   */
  ACCEPTED = 1,

  /**
   * the skill is not ready yet
   *
   * @generated from enum value: OUTCOME_COOLDOWN = 2;
   */
  COOLDOWN = 2,

  /**
   * you are dead: wait for the respawn
   *
   * @generated from enum value: OUTCOME_DEAD = 3;
   */
  DEAD = 3,

  /**
   * not one of your skills (CharacterInfo.skills)
   *
   * @generated from enum value: OUTCOME_UNKNOWN_SKILL = 4;
   */
  UNKNOWN_SKILL = 4,

  /**
   * over the per-second rate for this kind of input
   *
   * @generated from enum value: OUTCOME_RATE_LIMITED = 5;
   */
  RATE_LIMITED = 5,

  /**
   * whisper to a name that is not online
   *
   * @generated from enum value: OUTCOME_NO_SUCH_PLAYER = 6;
   */
  NO_SUCH_PLAYER = 6,

  /**
   * empty, over 256 bytes, or with control characters
   *
   * @generated from enum value: OUTCOME_BAD_TEXT = 7;
   */
  BAD_TEXT = 7,
}

/**
 * Describes the enum zs.zone.v1.Outcome.
 */
export const OutcomeSchema: GenEnum<Outcome> = /*@__PURE__*/
  enumDesc(file_zone, 4);

/**
 * v5: something the server tells you without closing the connection.
 *
 * @generated from enum zs.zone.v1.NoticeCode
 */
export enum NoticeCode {
  /**
   * @generated from enum value: NOTICE_CODE_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * the portal's zone cannot be reached just now: you stay
   *
   * @generated from enum value: NOTICE_CODE_ZONE_UNAVAILABLE = 1;
   */
  ZONE_UNAVAILABLE = 1,
}

/**
 * Describes the enum zs.zone.v1.NoticeCode.
 */
export const NoticeCodeSchema: GenEnum<NoticeCode> = /*@__PURE__*/
  enumDesc(file_zone, 5);

/**
 * @generated from enum zs.zone.v1.ErrorCode
 */
export enum ErrorCode {
  /**
   * @generated from enum value: ERROR_CODE_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * Hello.protocol_version not supported
   *
   * @generated from enum value: ERROR_CODE_PROTOCOL_VERSION = 1;
   */
  PROTOCOL_VERSION = 1,

  /**
   * oversize length, truncated or unparsable frame
   *
   * @generated from enum value: ERROR_CODE_BAD_FRAME = 2;
   */
  BAD_FRAME = 2,

  /**
   * gameplay before Hello
   *
   * @generated from enum value: ERROR_CODE_NOT_LOGGED_IN = 3;
   */
  NOT_LOGGED_IN = 3,

  /**
   * a second Hello
   *
   * @generated from enum value: ERROR_CODE_ALREADY_LOGGED_IN = 4;
   */
  ALREADY_LOGGED_IN = 4,

  /**
   * NaN/inf or out-of-range numbers
   *
   * @generated from enum value: ERROR_CODE_BAD_VALUE = 5;
   */
  BAD_VALUE = 5,

  /**
   * sustained flooding
   *
   * @generated from enum value: ERROR_CODE_RATE_LIMITED = 6;
   */
  RATE_LIMITED = 6,

  /**
   * connection caps
   *
   * @generated from enum value: ERROR_CODE_SERVER_FULL = 7;
   */
  SERVER_FULL = 7,

  /**
   * @generated from enum value: ERROR_CODE_BAD_NAME = 8;
   */
  BAD_NAME = 8,

  /**
   * token mode: the token was refused (why is not said)
   *
   * @generated from enum value: ERROR_CODE_AUTH_FAILED = 9;
   */
  AUTH_FAILED = 9,

  /**
   * your character cannot be loaded just now; try later
   *
   * @generated from enum value: ERROR_CODE_STORAGE_UNAVAILABLE = 10;
   */
  STORAGE_UNAVAILABLE = 10,

  /**
   * v5: Hello.ticket unknown, used or expired
   *
   * @generated from enum value: ERROR_CODE_BAD_TICKET = 11;
   */
  BAD_TICKET = 11,

  /**
   * v5: your character's zone is on a server that cannot
   *
   * @generated from enum value: ERROR_CODE_ZONE_UNAVAILABLE = 12;
   */
  ZONE_UNAVAILABLE = 12,
}

/**
 * Describes the enum zs.zone.v1.ErrorCode.
 */
export const ErrorCodeSchema: GenEnum<ErrorCode> = /*@__PURE__*/
  enumDesc(file_zone, 6);

