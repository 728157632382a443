#!/usr/bin/env python3
"""Reference client for the zone server, in plain Python with the protobuf library.

Speaks protocol 10 exactly as proto/zone.proto documents it: logs in, prints what it sees
(entities entering with their names, leaving, hits, chat, the results of its own inputs, clock
sync from Pong), walks in a circle (or straight on, --heading), swings at the nearest monster,
says something and whispers. When its zone is hosted by another server (a portal, or a login
routed there) it gets ZoneChanged{server_address, ticket}: it closes, connects to that address,
sends Hello{protocol_version, ticket} and carries on there. A portal that cannot be taken just
now is a Notice (printed); the player stays where it was.

The protocol's Python code is generated from proto/zone.proto at build time (never checked in):

    protoc --python_out=build/python -I proto proto/zone.proto   # the CMake build does this
    PYTHONPATH=build/python python3 examples/python/zone_client.py --name Aria --seconds 10

Needs Debian's python3-protobuf (installed by scripts/install-deps.sh). Every line it prints
starts with a word saying what it is (welcome, enter, leave, hit, chat, result, pong, zone,
handoff, notice, kick, error, summary), so scripts and tests can read it.
"""

import argparse
import math
import socket
import sys
import time

from google.protobuf.internal.decoder import _DecodeVarint32
from google.protobuf.internal.encoder import _VarintBytes

import mint_token  # beside this file: the login service example
import zone_pb2 as pb

PROTOCOL_VERSION = 10
CM = 100.0  # positions are centimetres on the wire
TURN = 65536  # angles are 1/65536 of a turn
MAX_HANDOFFS_PER_LOGIN = 4  # a login routed on and on is a server bug: give up


def split_address(address):
    """'host:port' or '[v6]:port' -> (host, port)."""
    host, _, port = address.rpartition(":")
    return host.strip("[]"), int(port)


class Connection:
    """Frames are a varint length followed by one message, both ways."""

    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port), timeout=5)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.buffer = b""
        self.closed = False

    def close(self):
        self.closed = True
        try:
            self.sock.close()
        except OSError:
            pass

    def send(self, message):
        body = message.SerializeToString()
        self.sock.sendall(_VarintBytes(len(body)) + body)

    def receive(self, timeout):
        """Every ServerMessage that arrives within `timeout` seconds (at least one read)."""
        self.sock.settimeout(max(timeout, 0.001))
        try:
            data = self.sock.recv(1 << 16)
            if not data:
                self.closed = True
            self.buffer += data
        except socket.timeout:
            pass
        except OSError:
            self.closed = True
        messages = []
        while self.buffer:
            try:
                length, start = _DecodeVarint32(self.buffer, 0)
            except IndexError:
                break  # the length itself is not complete yet
            if len(self.buffer) < start + length:
                break
            message = pb.ServerMessage()
            message.ParseFromString(self.buffer[start:start + length])
            self.buffer = self.buffer[start + length:]
            messages.append(message)
        return messages


class World:
    """What the client knows, kept exactly as tests/golden/README.md specifies (the store every
    client of ours agrees on): the zone, your own entity, each entity you were sent, the newest
    tick and input acknowledgement, the last crowd summary's total. Positions are integer
    centimetres and facings 1/65536 turn, as on the wire, so that deltas add up exactly."""

    def __init__(self, welcome=None):
        self.zone = None  # dict(id, name, min, max)
        self.self = None  # dict(id, x, y, facing, hp, alive)
        self.tick = None
        self.last_input_seq = 0
        self.crowd_total = None
        self.entities = {}  # id -> dict(id, kind, template_id, name, x, y, facing, radius, hp,
                            #            max_hp, alive)
        self.templates = {}
        if welcome is not None:
            self.apply_welcome(welcome)

    @property
    def me(self):
        return self.self["id"] if self.self else 0

    @property
    def x(self):  # metres, for printing and steering
        return self.self["x"] / CM if self.self else 0.0

    @property
    def y(self):
        return self.self["y"] / CM if self.self else 0.0

    def name_of(self, entity_id):
        if entity_id == self.me:
            return "you"
        e = self.entities.get(entity_id)
        if e is None:
            return "#%d" % entity_id
        if e["kind"] == pb.ENTITY_KIND_MONSTER:
            return self.templates.get(e["template_id"], "monster")
        return e["name"]

    def apply(self, message, out=lambda line: None):
        """Applies one ServerMessage (Welcome, TickUpdate, ZoneChanged; the others change
        nothing)."""
        kind = message.WhichOneof("kind")
        if kind == "welcome":
            self.apply_welcome(message.welcome)
        elif kind == "tick":
            self.apply_tick(message.tick, out)
        elif kind == "zone_changed":
            self.apply_zone_changed(message.zone_changed)

    def apply_welcome(self, w):
        self.zone = dict(id=w.zone_id, name=w.zone_name, min=[w.zone_min_x, w.zone_min_y],
                         max=[w.zone_max_x, w.zone_max_y])
        self.self = dict(id=w.entity_id, x=w.x, y=w.y, facing=w.facing, hp=w.you.hp,
                         alive=not w.you.dead)
        self.tick = None
        self.last_input_seq = 0
        self.crowd_total = None
        self.entities = {}
        self.templates = {t.id: t.name for t in w.monster_templates}

    def apply_zone_changed(self, z):
        self.zone = dict(id=z.zone_id, name=z.zone_name, min=[z.zone_min_x, z.zone_min_y],
                         max=[z.zone_max_x, z.zone_max_y])
        if self.self is not None:
            self.self["x"], self.self["y"] = z.x, z.y
        self.entities = {}
        self.crowd_total = None

    def apply_tick(self, tick, out=lambda line: None):
        if tick.resync:
            self.entities = {}
        for entity_id in tick.left:
            if entity_id in self.entities:
                out("leave %s" % self.name_of(entity_id))
                del self.entities[entity_id]
        for e in tick.entered:
            self.entities[e.id] = dict(id=e.id, kind=e.kind, template_id=e.template_id,
                                       name=e.name, x=e.x, y=e.y, facing=e.facing,
                                       radius=e.radius, hp=e.hp, max_hp=e.max_hp, alive=e.alive)
            out("enter %s %s id=%d at (%.1f, %.1f) hp %d/%d" %
                ("monster" if e.kind == pb.ENTITY_KIND_MONSTER else "player", self.name_of(e.id),
                 e.id, e.x / CM, e.y / CM, e.hp, e.max_hp))
        for u in tick.updated:  # absolute values; absent fields did not change
            e = self.entities.get(u.id)
            if e is not None:
                for field in ("x", "y", "facing", "hp", "alive"):
                    if u.HasField(field):
                        e[field] = getattr(u, field)
        self._apply_deltas(tick.moved_ids, tick.moved_deltas, None)
        self._apply_deltas(tick.turned_ids, tick.turned_deltas, tick.turned_facings)  # v9
        if tick.HasField("self") and self.self is not None:
            for field in ("x", "y", "facing", "hp", "alive"):
                if tick.self.HasField(field):
                    self.self[field] = getattr(tick.self, field)
        self.tick = tick.tick
        self.last_input_seq = tick.last_input_seq
        if tick.HasField("crowd"):
            self.crowd_total = tick.crowd.total

    def _apply_deltas(self, ids, deltas, facings):
        """ids as gaps (id = running sum), two deltas per id, and a facing per id (turns)."""
        count = min(len(ids), len(deltas) // 2, len(facings) if facings is not None else len(ids))
        entity_id = 0
        for i in range(count):
            if i > 0 and ids[i] == 0:
                continue  # the same id again: skipped (a broken list)
            entity_id += ids[i]
            e = self.entities.get(entity_id)
            if e is None:
                continue
            e["x"] = wrap32(e["x"] + deltas[2 * i])
            e["y"] = wrap32(e["y"] + deltas[2 * i + 1])
            if facings is not None:
                e["facing"] = facings[i]

    def snapshot(self):
        """The store as the golden streams write it."""
        return dict(zone=self.zone, tick=self.tick, last_input_seq=self.last_input_seq,
                    self=self.self, entities=[self.entities[k] for k in sorted(self.entities)],
                    crowd_total=self.crowd_total)

    def nearest_monster(self):
        best = None
        for entity_id, e in self.entities.items():
            if e["kind"] != pb.ENTITY_KIND_MONSTER or not e["alive"]:
                continue
            d = math.hypot(e["x"] / CM - self.x, e["y"] / CM - self.y)
            if best is None or d < best[0]:
                best = (d, entity_id, e)
        return best


def wrap32(value):
    """A sint32 sum as the wire's 32-bit arithmetic wraps it."""
    return (value + 2**31) % 2**32 - 2**31


def events_of(message):
    """The events a ServerMessage raises, as the golden streams write them (tests/golden)."""
    kind = message.WhichOneof("kind")
    if kind == "tick":
        t = message.tick
        return ([dict(type="hit", attacker=h.attacker, skill=h.skill_id,
                      targets=[[x.id, x.damage, x.killed] for x in h.targets]) for h in t.hits] +
                [dict(type="chat", channel=c.channel, **{"from": c.from_id}, text=c.text)
                 for c in t.chat] +
                [dict(type="result", kind=r.kind, seq=r.seq, outcome=r.outcome)
                 for r in t.results])
    if kind == "zone_changed":
        z = message.zone_changed
        return [dict(type="zone_changed", zone_id=z.zone_id, server_address=z.server_address,
                     websocket_url=z.websocket_url)]
    if kind == "kick":
        return [dict(type="kick", reason=message.kick.reason)]
    if kind == "error":
        return [dict(type="error", code=message.error.code)]
    if kind == "notice":
        return [dict(type="notice", code=message.notice.code)]
    return []


def hello_by_name(name, token=""):
    """A Hello: by name (auth mode none), or with a login token (mode token: the token names
    the character, the name is ignored)."""
    hello = pb.ClientMessage()
    hello.hello.protocol_version = PROTOCOL_VERSION
    hello.hello.player_name = name
    if token:
        hello.hello.auth_token = token
    return hello


def hello_by_ticket(ticket):
    hello = pb.ClientMessage()
    hello.hello.protocol_version = PROTOCOL_VERSION
    hello.hello.ticket = ticket
    return hello


def hand_off(conn, zone_changed, out):
    """Leaves `conn` for the server that hosts the zone now; returns the new Connection."""
    out("handoff %s to %s" % (zone_changed.zone_name, zone_changed.server_address))
    conn.close()
    host, port = split_address(zone_changed.server_address)
    new = Connection(host, port)
    new.send(hello_by_ticket(zone_changed.ticket))
    return new


def log_in(conn, hello, out):
    """Sends `hello` and waits for the Welcome, following a login routed to another server.

    Returns (connection, welcome, messages that came right behind the Welcome); welcome is None
    (said why) when the server refused.
    """
    if hello is not None:  # None: already sent (hand_off sends the ticket)
        conn.send(hello)
    for _ in range(MAX_HANDOFFS_PER_LOGIN + 1):
        welcome, routed, early = None, None, []
        deadline = time.time() + 5
        while welcome is None and routed is None and time.time() < deadline and not conn.closed:
            for m in conn.receive(0.5):
                if welcome is not None:
                    early.append(m)
                elif m.HasField("welcome"):
                    welcome = m.welcome
                elif m.HasField("zone_changed") and m.zone_changed.server_address:
                    routed = m.zone_changed
                    break
                elif m.HasField("error"):
                    out("error %s: %s" % (pb.ErrorCode.Name(m.error.code), m.error.message))
                    return conn, None, []
        if routed is None:
            if welcome is None:
                out("error no Welcome")
            return conn, welcome, early
        conn = hand_off(conn, routed, out)
    out("error routed more than %d times" % MAX_HANDOFFS_PER_LOGIN)
    return conn, None, []


def print_welcome(welcome, out):
    you = welcome.you
    out("welcome %s id=%d zone %s at (%.1f, %.1f) hp %d/%d speed %.1f m/s view %.0f m chat %.0f m "
        "tick %d Hz" % (welcome.player_name, welcome.entity_id, welcome.zone_name,
                        welcome.x / CM, welcome.y / CM, you.hp, you.max_hp, you.speed / CM,
                        you.view_radius / CM, welcome.chat_radius / CM, welcome.tick_rate))
    for s in you.skills:
        out("welcome skill %d %s %s range %.1f m radius %.1f m cooldown %d ms damage %d" %
            (s.id, s.name, pb.SkillShape.Name(s.shape), s.range / CM, s.radius / CM,
             s.cooldown_ms, s.damage))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7777)
    parser.add_argument("--name", default="Pythonista")
    parser.add_argument("--token", default="",
                        help="a login token (server in auth mode token), e.g. from "
                             "mint_token.py or `zone_server token`")
    parser.add_argument("--token-secret", default="", metavar="FILE",
                        help="mint the login token here with the server's secret in FILE, as a "
                             "login service would (account --account, character --name)")
    parser.add_argument("--account", type=int, default=1,
                        help="the account of a token minted with --token-secret")
    parser.add_argument("--seconds", type=float, default=10)
    parser.add_argument("--say", default="hello from Python")
    parser.add_argument("--whisper-to", default="")
    parser.add_argument("--walk-seconds", type=float, default=1e9,
                        help="walk in a circle this long, then stand still")
    parser.add_argument("--heading", type=float, default=None,
                        help="walk straight on at this many degrees (0: east, 90: north) "
                             "instead of in a circle, e.g. into a portal")
    args = parser.parse_args()

    out = lambda line: print(line, flush=True)
    token = args.token
    if args.token_secret:
        token = mint_token.mint(mint_token.read_secret_file(args.token_secret), args.account,
                                args.name, ttl=300)
    hello = hello_by_name(args.name, token)
    conn, welcome, early = log_in(Connection(args.host, args.port), hello, out)
    if welcome is None:
        return 1
    print_welcome(welcome, out)
    you = welcome.you
    world = World(welcome)

    seq = 0
    chat_seq = 0
    start = time.time()
    next_act = start
    said = False
    counts = {"ticks": 0, "chat": 0, "results": 0, "hits": 0}
    while time.time() - start < args.seconds and not conn.closed:
        now = time.time()
        if now >= next_act:
            next_act = now + 0.5
            seq += 1
            angle = (now - start) * 0.8  # walk in a circle
            if args.heading is not None:
                angle = math.radians(args.heading)
            walking = now - start < args.walk_seconds
            move = pb.ClientMessage()
            move.move.seq = seq
            move.move.direction_x = math.cos(angle) if walking else 0.0
            move.move.direction_y = math.sin(angle) if walking else 0.0
            conn.send(move)
            target = world.nearest_monster()
            if target is not None and target[0] < 4 and you.skills:
                seq += 1
                swing = pb.ClientMessage()
                swing.skill.seq = seq
                swing.skill.skill_id = you.skills[0].id
                facing = math.atan2(target[2]["y"] / CM - world.y, target[2]["x"] / CM - world.x)
                swing.skill.facing = int(round(facing % (2 * math.pi) / (2 * math.pi) * TURN)) % TURN
                conn.send(swing)
            ping = pb.ClientMessage()
            ping.ping.client_time = int(now * 1000)
            conn.send(ping)
            if not said and now - start > 0.5:
                said = True
                chat_seq += 1
                say = pb.ClientMessage()
                say.chat.seq = chat_seq
                say.chat.channel = pb.CHAT_CHANNEL_SAY
                say.chat.text = args.say
                conn.send(say)
                if args.whisper_to:
                    chat_seq += 1
                    whisper = pb.ClientMessage()
                    whisper.chat.seq = chat_seq
                    whisper.chat.channel = pb.CHAT_CHANNEL_WHISPER
                    whisper.chat.to = args.whisper_to
                    whisper.chat.text = "psst, " + args.whisper_to
                    conn.send(whisper)
        arrivals, early = early, []
        for m in arrivals + conn.receive(0.05):
            kind = m.WhichOneof("kind")
            if kind == "tick":
                counts["ticks"] += 1
                world.apply_tick(m.tick, out)
                for hit in m.tick.hits:
                    counts["hits"] += 1
                    for t in hit.targets:
                        out("hit %s -> %s: %d damage%s" % (world.name_of(hit.attacker),
                                                          world.name_of(t.id), t.damage,
                                                          " (killed)" if t.killed else ""))
                for line in m.tick.chat:
                    counts["chat"] += 1
                    to = (" to " + line.to) if line.to else ""
                    out("chat [%s] %s%s: %s" % (pb.ChatChannel.Name(line.channel), line.from_name,
                                                to, line.text))
                for r in m.tick.results:
                    counts["results"] += 1
                    out("result %s seq %d: %s" % (pb.InputKind.Name(r.kind), r.seq,
                                                  pb.Outcome.Name(r.outcome)))
            elif kind == "pong":
                received = time.time() * 1000
                rtt = received - m.pong.client_time
                offset = m.pong.server_time_ms - (m.pong.client_time + received) / 2
                out("pong rtt %.1f ms, server clock %+.0f ms from ours, tick %d" %
                    (rtt, offset, m.pong.server_tick))
            elif kind == "zone_changed" and m.zone_changed.server_address:
                # Nothing more comes here (the Kick "zone_handoff" is all): go there now.
                conn, welcome, arrived = log_in(hand_off(conn, m.zone_changed, out), None, out)
                if welcome is None:
                    return 1
                print_welcome(welcome, out)
                you, world = welcome.you, World(welcome)
                early = arrived
                break
            elif kind == "zone_changed":
                world.apply_zone_changed(m.zone_changed)
                out("zone %s" % m.zone_changed.zone_name)
            elif kind == "notice":
                out("notice %s: %s" % (pb.NoticeCode.Name(m.notice.code), m.notice.text))
            elif kind == "kick":
                out("kick %s" % m.kick.reason)
            elif kind == "error":
                out("error %s: %s" % (pb.ErrorCode.Name(m.error.code), m.error.message))

    logout = pb.ClientMessage()
    logout.logout.SetInParent()
    conn.send(logout)
    deadline = time.time() + 2
    while not conn.closed and time.time() < deadline:
        for m in conn.receive(0.2):
            if m.HasField("kick"):
                out("kick %s" % m.kick.reason)
    out("summary ticks %d known %d chat %d results %d hits %d at (%.1f, %.1f)" %
        (counts["ticks"], len(world.entities), counts["chat"], counts["results"], counts["hits"],
         world.x, world.y))
    return 0


if __name__ == "__main__":
    sys.exit(main())
