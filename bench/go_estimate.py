#!/usr/bin/env python3
"""go_estimate.py - GNU Go's estimate_score along the games of an SGF directory.

usage: bench/go_estimate.py DIR PLY,PLY,... [GNUGO_LEVEL]

For each DIR/*.sgf (as bench/gtp_referee.py --sgf-dir writes them) replays
the moves into `gnugo --mode gtp --chinese-rules --positional-superko` and
prints the game's result and GNU Go's estimate_score after each given
number of moves: where a lost game was lost. GNU Go's estimate is coarse
on an open board (it guesses the status of groups), less so once the
groups are settled.
"""
import glob
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from gtp_referee import Engine  # noqa: E402


def moves_of(sgf):
    size = int(re.search(r"SZ\[(\d+)\]", sgf).group(1))
    out = []
    for _, pt in re.findall(r";([BW])\[([a-z]{0,2})\]", sgf):
        if not pt:
            out.append("pass")
            continue
        x = ord(pt[0]) - ord("a")
        y = size - (ord(pt[1]) - ord("a"))
        out.append(chr(ord("a") + x + (1 if x >= 8 else 0)) + str(y))
    return size, out


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    plies = {int(p) for p in sys.argv[2].split(",")}
    level = sys.argv[3] if len(sys.argv) > 3 else "10"
    gnugo = shutil.which("gnugo") or "/usr/games/gnugo"
    e = Engine("%s --mode gtp --level %s --chinese-rules --positional-superko" % (gnugo, level))
    try:
        for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.sgf"))):
            sgf = open(f).read()
            size, mv = moves_of(sgf)
            km = re.search(r"KM\[([-0-9.]+)\]", sgf)
            e.must("boardsize %d" % size)
            e.must("komi %s" % (km.group(1) if km else "7.5"))
            e.must("clear_board")
            colour, out = "b", []
            for i, m in enumerate(mv, 1):
                e.must("play %s %s" % (colour, m))
                colour = "w" if colour == "b" else "b"
                if i in plies:
                    out.append("%d:%s" % (i, e.must("estimate_score").split()[0]))
            res = re.search(r"RE\[([^]]*)\]", sgf)
            print(os.path.basename(f), res.group(1) if res else "?", " ".join(out), flush=True)
    finally:
        e.close()


if __name__ == "__main__":
    main()
