#!/usr/bin/env bash
# Build (preset $GGP_PRESET, default dev) and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
preset=${GGP_PRESET:-dev}
./.ci/deps.sh
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j"$(nproc)"
ctest --preset "$preset" -j"$(nproc)"
