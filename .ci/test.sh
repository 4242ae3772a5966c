#!/usr/bin/env bash
# Build (preset $GGP_PRESET, default dev) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${GGP_PRESET:-dev}
./.ci/deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
# shellcheck disable=SC2086 # GGP_CTEST_ARGS is a list of arguments
ctest --preset "$preset" -j"$(nproc)" ${GGP_CTEST_ARGS:-}
