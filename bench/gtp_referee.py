#!/usr/bin/env python3
"""gtp_referee.py - play games between two GTP engines, seats swapped.

usage: bench/gtp_referee.py --a 'CMD' --b 'CMD' [--games N] [--size 9]
       [--komi 7.5] [--max-moves M] [--time MAIN,BYO,STONES] [--scorer a|b]
       [--sgf-dir DIR] [--timeout S]

Game k: A plays black when k is even, white when odd. Each engine gets
boardsize, komi, clear_board (and time_settings with --time), then genmove
for its colour and play for the other's. A game ends at two passes in a
row, a resignation, an illegal move (the mover loses: the other engine
refused it), an engine that dies or does not answer a command within
--timeout seconds (it forfeits, and is started again) or --max-moves. The score is the final_score of the engine
--scorer names (GNU Go's removes dead stones; ggp counts the area as it
stands); the line also gives the other engine's own count, which differs
when the two disagree about dead stones. One line per game, then A's score (wins + draws/2 over games)
with an Agresti-Coull 95% interval, as `ggp tournament` prints it.

--sgf-dir DIR writes DIR/gameK.sgf for each game: the moves, the result,
and in the root comment both engines' final_score, the final board of
each (showboard) and the stones the scorer calls dead (final_status_list
dead, where it knows the command): what to read when a score looks wrong.
"""
import os
import argparse
import math
import select
import shlex
import subprocess
import sys
import time


class EngineError(RuntimeError):
    """An engine that died, closed its output or did not answer in time:
    the game in progress is its forfeit, and it is started again."""

    def __init__(self, engine, text):
        RuntimeError.__init__(self, text)
        self.engine = engine


class Engine:
    def __init__(self, cmd, timeout):
        self.cmd = cmd
        self.timeout = timeout
        self.start()

    def start(self):
        self.p = subprocess.Popen(shlex.split(self.cmd), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.DEVNULL)
        self.buf = b""

    def restart(self):
        self.kill()
        self.start()

    def kill(self):
        try:
            self.p.kill()
        except OSError:
            pass
        self.p.wait()

    def readline(self, deadline):
        # select on the pipe with a deadline: a silent engine must not hold
        # the referee forever (readline() would)
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0:
                raise EngineError(self, "%s: no answer in %g s" % (self.cmd, self.timeout))
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                continue
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                raise EngineError(self, "%s: end of output" % self.cmd)
            self.buf += chunk
        line, self.buf = self.buf.split(b"\n", 1)
        return line.decode("utf-8", "replace")

    def send(self, line, timeout=None):
        try:
            self.p.stdin.write((line + "\n").encode())
            self.p.stdin.flush()
        except (BrokenPipeError, OSError) as e:
            raise EngineError(self, "%s: cannot send '%s': %s" % (self.cmd, line, e))
        deadline = time.monotonic() + (timeout if timeout is not None else self.timeout)
        lines = []
        while True:
            s = self.readline(deadline).rstrip("\r")
            if s == "" and lines:
                break
            if s == "" and not lines:
                continue
            lines.append(s)
        head = lines[0]
        ok = head.startswith("=")
        text = "\n".join([head[1:].strip()] + lines[1:]).strip()
        return ok, text

    def must(self, line):
        ok, text = self.send(line)
        if not ok:
            raise RuntimeError("%s: '%s' failed: %s" % (self.cmd, line, text))
        return text

    def close(self):
        try:
            self.send("quit", timeout=5)
        except Exception:
            pass
        try:
            self.p.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.kill()


def agresti_coull(x, n):
    if n == 0:
        return 0.0, 1.0
    z = 1.959964
    nt = n + z * z
    pt = (x + z * z / 2) / nt
    h = z * math.sqrt(pt * (1 - pt) / nt)
    return max(0.0, pt - h), min(1.0, pt + h)


def score_sign(s):
    s = s.strip().upper()
    if s.startswith("B+"):
        return 1
    if s.startswith("W+"):
        return -1
    return 0


def play_game(a, b, a_black, args):
    """The game's result, moves, seconds per colour and the other engine's
    count; an engine that fails (EngineError) forfeits it and is started
    again for the next game."""
    black, white = (a, b) if a_black else (b, a)
    try:
        return play_moves(a, b, black, white, args)
    except EngineError as e:
        e.engine.restart()
        lost = "B" if e.engine is black else "W"
        result = ("W" if lost == "B" else "B") + "+forfeit (%s)" % e
        if args.sgf_dir:
            try:
                write_sgf(args, a, b, a_black, result, [])
            except EngineError as e2:
                e2.engine.restart()
        return result, [], {"b": 0.0, "w": 0.0}, ""


def play_moves(a, b, black, white, args):
    a_black = black is a
    for e in (a, b):
        e.must("boardsize %d" % args.size)
        e.must("komi %g" % args.komi)
        e.must("clear_board")
        if args.time:
            e.must("time_settings %s" % " ".join(args.time.split(",")))
    passes, moves, colour = 0, [], "b"
    t = {"b": 0.0, "w": 0.0}
    result = None
    while len(moves) < args.max_moves:
        mover, other = (black, white) if colour == "b" else (white, black)
        t0 = time.monotonic()
        ok, mv = mover.send("genmove %s" % colour)
        t[colour] += time.monotonic() - t0
        if not ok:
            result = ("W" if colour == "b" else "B") + "+forfeit (genmove failed: %s)" % mv
            break
        mv = mv.lower()
        moves.append(mv)
        if mv == "resign":
            result = ("W" if colour == "b" else "B") + "+resign"
            break
        ok, err = other.send("play %s %s" % (colour, mv))
        if not ok:
            result = ("W" if colour == "b" else "B") + "+forfeit (%s refused %s: %s)" % ("white" if colour == "b" else "black", mv, err)
            break
        passes = passes + 1 if mv == "pass" else 0
        if passes == 2:
            break
        colour = "w" if colour == "b" else "b"
    other_count = ""
    if result is None:
        scorer, other = (a, b) if args.scorer == "a" else (b, a)
        result = scorer.must("final_score")
        # the other engine's own count: when it differs, the two engines
        # disagree about which stones are dead (ggp counts the board as it
        # stands; GNU Go removes the stones it judges dead)
        ok, text = other.send("final_score")
        other_count = text if ok else "?"
    if args.sgf_dir:
        write_sgf(args, a, b, a_black, result, moves)
    return result, moves, t, other_count


def sgf_point(mv, size):
    """A GTP vertex (a1 .. t19, no i) as SGF coordinates (aa = top left);
    a pass, or anything that is not a vertex, as a pass."""
    if mv == "pass" or len(mv) < 2 or not mv[0].isalpha() or not mv[1:].isdigit():
        return ""
    col = ord(mv[0]) - ord("a") - (1 if mv[0] > "i" else 0)
    row = size - int(mv[1:])
    return chr(ord("a") + col) + chr(ord("a") + row)


def write_sgf(args, a, b, a_black, result, moves):
    notes = []
    for name, e in (("A", a), ("B", b)):
        for cmd in ("final_score", "final_status_list dead", "showboard"):
            ok, text = e.send(cmd)
            notes.append("%s %s: %s" % (name, cmd, text if ok else "(" + text + ")"))
    comment = "\n".join(notes).replace("\\", "\\\\").replace("]", "\\]")
    pb, pw = (args.a, args.b) if a_black else (args.b, args.a)
    out = ["(;GM[1]FF[4]SZ[%d]KM[%g]RU[Chinese]PB[%s]PW[%s]RE[%s]C[%s]" %
           (args.size, args.komi, pb.replace("]", "\\]"), pw.replace("]", "\\]"), result, comment)]
    for i, mv in enumerate(moves):
        if mv == "resign":
            break
        out.append(";%s[%s]" % ("B" if i % 2 == 0 else "W", sgf_point(mv, args.size)))
    os.makedirs(args.sgf_dir, exist_ok=True)
    with open(os.path.join(args.sgf_dir, "game%d.sgf" % args.game_no), "w") as f:
        f.write("".join(out) + ")\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--a", required=True)
    ap.add_argument("--b", required=True)
    ap.add_argument("--games", type=int, default=2)
    ap.add_argument("--size", type=int, default=9)
    ap.add_argument("--komi", type=float, default=7.5)
    ap.add_argument("--max-moves", type=int, default=400)
    ap.add_argument("--time", default="")
    ap.add_argument("--scorer", choices=["a", "b"], default="b")
    ap.add_argument("--sgf-dir", default="")
    ap.add_argument("--timeout", type=float, default=600,
                    help="seconds an engine has to answer one command (else it forfeits the game)")
    args = ap.parse_args()
    a, b = Engine(args.a, args.timeout), Engine(args.b, args.timeout)
    score = 0.0
    try:
        for k in range(args.games):
            a_black = k % 2 == 0
            args.game_no = k
            res, moves, t, other_count = play_game(a, b, a_black, args)
            sgn = score_sign(res)
            a_sign = sgn if a_black else -sgn
            pts = 1.0 if a_sign > 0 else 0.5 if a_sign == 0 else 0.0
            score += pts
            print("game %d: A=%s %s  moves %d  secs/move b %.2f w %.2f  A %s%s" %
                  (k, "black" if a_black else "white", res, len(moves),
                   t["b"] / max(1, (len(moves) + 1) // 2), t["w"] / max(1, len(moves) // 2),
                   {1.0: "won", 0.5: "drew", 0.0: "lost"}[pts],
                   "  (%s counts %s)" % ("B" if args.scorer == "a" else "A", other_count) if other_count else ""),
                  flush=True)
    finally:
        a.close()
        b.close()
    lo, hi = agresti_coull(score, args.games)
    print("result A=%s B=%s games=%d A_score=%.1f rate=%.3f ci95=[%.3f,%.3f]" %
          (args.a, args.b, args.games, score, score / max(1, args.games), lo, hi))


if __name__ == "__main__":
    sys.exit(main())
