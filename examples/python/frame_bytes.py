#!/usr/bin/env python3
"""Where a client's bytes go: logs in as one player that stands still (or, with --walk-to-centre,
walks into the middle of its zone as client_sim's crowd bots do) and reports, per second,
the bytes each TickUpdate field takes (entered, updated by the set of fields it carries, moved,
turned, left, hits, ...), and how often an entity that left enters again within a second.

Run it beside a load (e.g. client_sim --scenario crowd) to see what a crowded player is sent:

    PYTHONPATH=build/release/python /usr/bin/python3 examples/python/frame_bytes.py \\
        --port 7777 --seconds 15

A field's bytes are exactly what it adds to the TickUpdate (the message's size with and without
it); an `updated` item's are its own size with its tag and length. Frames are counted with their
ServerMessage wrapping and length prefix, so the fields add up to a little less than the frames.
It pings every few seconds, so the server never closes it as idle.
"""

import argparse
import collections
import math
import random
import time

from google.protobuf.internal.encoder import _VarintBytes

import mint_token  # beside this file: the login service example
import zone_client
import zone_pb2 as pb

WINDOW_TICKS = 20  # "enters again soon": within this many ticks (a second at 20 Hz)
PING_SECONDS = 5  # well inside the server's idle timeout


class Tally:
    """Bytes and items per field over the frames counted."""

    def __init__(self):
        self.bytes = collections.Counter()
        self.items = collections.Counter()
        self.frame_bytes = 0
        self.frames = 0
        self.left_at = {}
        self.back_soon = 0

    def add(self, message):
        t = message.tick
        size = message.ByteSize()
        self.frames += 1
        self.frame_bytes += len(_VarintBytes(size)) + size
        whole = t.ByteSize()
        for field, value in t.ListFields():
            if field.name == "updated":
                for u in value:
                    fields = "+".join(f.name for f, _ in u.ListFields() if f.name != "id")
                    key = "updated: " + (fields or "id only")
                    item = u.ByteSize()
                    self.bytes[key] += 1 + len(_VarintBytes(item)) + item
                    self.items[key] += 1
                continue
            without = pb.TickUpdate()
            without.CopyFrom(t)
            without.ClearField(field.name)
            self.bytes[field.name] += whole - without.ByteSize()
            repeated = field.label == field.LABEL_REPEATED
            self.items[field.name] += len(value) if repeated else 1
        for e in t.entered:
            if t.tick - self.left_at.get(e.id, -WINDOW_TICKS - 1) <= WINDOW_TICKS:
                self.back_soon += 1
        for i in t.left:
            self.left_at[i] = t.tick

    def report(self, seconds):
        print("frames %.1f/s, %.1f KB/s" % (self.frames / seconds,
                                           self.frame_bytes / seconds / 1000))
        for name, n in sorted(self.bytes.items(), key=lambda kv: -kv[1]):
            print("field %-32s %7.2f KB/s %8.1f items/s" % (name, n / seconds / 1000,
                                                             self.items[name] / seconds))
        print("entered again within %d ticks of leaving: %.1f/s" % (WINDOW_TICKS,
                                                                   self.back_soon / seconds))


class Walker:
    """Moves as client_sim's crowd bots do: twice a second a new direction, to the zone's centre
    at full speed, or within ARRIVED metres of it a random one at 0.3 of it (milling about)."""

    ARRIVED = 3.0  # metres (client_sim's kArrived)
    ACT_SECONDS = 0.5  # client_sim's default --input-rate 2

    def __init__(self, welcome, conn):
        self.conn = conn
        self.goal = ((welcome.zone_min_x + welcome.zone_max_x) / 2 / zone_client.CM,
                     (welcome.zone_min_y + welcome.zone_max_y) / 2 / zone_client.CM)
        self.x, self.y = welcome.x / zone_client.CM, welcome.y / zone_client.CM
        self.seq = 0
        self.next_act = 0.0

    def step(self, tick):
        if tick.HasField("self"):
            if tick.self.HasField("x"):
                self.x = tick.self.x / zone_client.CM
            if tick.self.HasField("y"):
                self.y = tick.self.y / zone_client.CM
        now = time.time()
        if now < self.next_act:
            return
        self.next_act = now + self.ACT_SECONDS * random.uniform(0.8, 1.2)
        dx, dy = self.goal[0] - self.x, self.goal[1] - self.y
        length = math.hypot(dx, dy)
        if length > self.ARRIVED:
            dx, dy = dx / length, dy / length
        else:
            angle = random.uniform(-math.pi, math.pi)
            dx, dy = 0.3 * math.cos(angle), 0.3 * math.sin(angle)
        self.seq += 1
        move = pb.ClientMessage()
        move.move.seq = self.seq
        move.move.direction_x, move.move.direction_y = dx, dy
        self.conn.send(move)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=7777)
    parser.add_argument("--name", default="Counter")
    parser.add_argument("--token-secret", default="", metavar="FILE",
                        help="server in auth mode token: mint the login token with its secret")
    parser.add_argument("--seconds", type=float, default=15)
    parser.add_argument("--walk-to-centre", action="store_true",
                        help="walk to the zone's centre and mill within 3 m of it, like a crowd bot")
    parser.add_argument("--settle", type=float, default=2,
                        help="seconds to wait after the login before counting")
    args = parser.parse_args()

    token = ""
    if args.token_secret:
        token = mint_token.mint(mint_token.read_secret_file(args.token_secret), 1, args.name,
                                ttl=300)
    conn, welcome, _ = zone_client.log_in(
        zone_client.Connection(args.host, args.port),
        zone_client.hello_by_name(args.name, token), lambda line: None)
    if welcome is None:
        print("error: not logged in")
        return 1
    tally = Tally()
    walker = Walker(welcome, conn) if args.walk_to_centre else None
    start = time.time()
    counting_from = None
    next_ping = start
    while not conn.closed:
        now = time.time()
        if now >= next_ping:
            next_ping = now + PING_SECONDS
            ping = pb.ClientMessage()
            ping.ping.client_time = int(now * 1000)
            conn.send(ping)
        if counting_from is None and now - start >= args.settle:
            counting_from = now
        if counting_from is not None and now - counting_from >= args.seconds:
            break
        for message in conn.receive(0.5):
            if not message.HasField("tick"):
                continue
            if walker is not None:
                walker.step(message.tick)
            if counting_from is not None:
                tally.add(message)
    if counting_from is None or tally.frames == 0:
        print("error: no frames")
        return 1
    tally.report(time.time() - counting_from)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
