"""Decodes what another implementation encoded, for cross-checking: one JSON request a line
on stdin, one JSON answer a line on stdout (test/clients/python.test.ts drives it).

    {"frame": HEX}                       -> {"value": ..., "frame": HEX re-encoded} | {"error": CODE}
    {"enter": [TICK, TIME]}              -> {} (motion references start afresh)
    {"resolve": HEX}                     -> {"value": the WorldUpdate resolved against the references}
"""

import json
import sys

from wyvern_client import packets
from wyvern_client.codec import DecodeError, FrameDecoder, to_wire
from wyvern_client.records import MotionRefs


def decode(hex_frame: str):
    frames = list(FrameDecoder().frames(bytes.fromhex(hex_frame)))
    if len(frames) != 1:
        raise DecodeError("ERR_PARTIAL_FRAME", f"{len(frames)} frames")
    return packets.decode(*frames[0])


def main() -> None:
    refs = MotionRefs()
    for line in sys.stdin:
        req = json.loads(line)
        try:
            if "frame" in req:
                value = decode(req["frame"])
                answer = {"value": to_wire(value), "frame": packets.encode(value).hex()}
            elif "enter" in req:
                refs.enter(*req["enter"])
                answer = {}
            else:
                update = decode(req["resolve"])
                refs.resolve(update)
                answer = {"value": to_wire(update)}
        except DecodeError as e:
            answer = {"error": e.code}
        sys.stdout.write(json.dumps(answer) + "\n")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
