#!/bin/bash
# compete evidence runs (issue 12), 0.1 s per move, seats swapped
B=build/release/player/ggp
run() { # game a b games tag
  $B tournament "$1" --a "$2" --b "$3" --games "$4" --jobs 2 --csv "out/t_$5.csv" 2>/dev/null | tail -1 | sed "s|^|$5 |" >> out/runs.txt
}
: > out/runs.txt
run games/connect4.kif compete:seconds=0.1 uct:seconds=0.1 40 c4_uct
run games/connect4.kif compete:seconds=0.1 grave:seconds=0.1 40 c4_grave
run games/breakthrough6.kif compete:seconds=0.1 uct:seconds=0.1 40 bt6_uct
run games/breakthrough6.kif compete:seconds=0.1 grave:seconds=0.1 40 bt6_grave
run ../shared/games/connectFourSimultaneous.kif compete:seconds=0.1 uct:seconds=0.1 30 c4sim_uct
run ../shared/games/connectFourSimultaneous.kif compete:seconds=0.1 grave:seconds=0.1 30 c4sim_grave
run games/connect4.kif compete:seconds=0.1 compete:seconds=0.1,solver=off 30 c4_nosolver
run games/connect4.kif compete:seconds=0.1 compete:seconds=0.1,reuse=off 30 c4_noreuse
run games/hex7.kif compete:seconds=0.1 uct:seconds=0.1 20 hex7_uct
run games/othello.kif compete:seconds=0.1 uct:seconds=0.1 20 oth_uct
