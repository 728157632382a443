#!/usr/bin/env python3
"""Replays the golden frame streams (tests/golden/README.md) through the reference client's
World, and checks that after every message it holds exactly the recorded store and raised
exactly the recorded events. Exits 1 (saying where) at the first difference.

    PYTHONPATH=build/test/python /usr/bin/python3 examples/python/golden_replay.py tests/golden

A directory stands for every *.json in it (at least one).
"""

import base64
import glob
import json
import os
import sys

import zone_client
import zone_pb2 as pb


def replay(path):
    with open(path) as f:
        stream = json.load(f)
    if stream["protocol_version"] != zone_client.PROTOCOL_VERSION:
        return "%s: recorded for protocol %d, this client speaks %d (re-record: " \
               "scripts/record-golden.sh)" % (path, stream["protocol_version"],
                                              zone_client.PROTOCOL_VERSION)
    world = zone_client.World()
    for index, step in enumerate(stream["steps"]):
        message = pb.ServerMessage()
        message.ParseFromString(base64.b64decode(step["message"], validate=True))
        world.apply(message)
        for what, got, want in (("store", world.snapshot(), step["store"]),
                                ("events", zone_client.events_of(message), step["events"])):
            if got != want:
                return "%s step %d (%s): %s differs\n got:  %s\n want: %s" % (
                    path, index, message.WhichOneof("kind"), what, json.dumps(got, sort_keys=True),
                    json.dumps(want, sort_keys=True))
    print("golden %s: %d messages reproduced" % (stream["name"], len(stream["steps"])))
    return None


def main(args):
    paths = []
    for arg in args:
        found = sorted(glob.glob(os.path.join(arg, "*.json"))) if os.path.isdir(arg) else [arg]
        if not found:
            print("golden_replay.py: no streams in %s" % arg, file=sys.stderr)
            return 1
        paths += found
    if not paths:
        print("usage: golden_replay.py STREAM.json|DIR...", file=sys.stderr)
        return 2
    for path in paths:
        problem = replay(path)
        if problem:
            print(problem, file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
