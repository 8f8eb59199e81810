#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the best demo arena has today.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
bash "$root/scripts/build.sh" "$root/build"
arena="$root/build/bin/arena"

echo "arena: the tournament runner and the board view are not built yet; showing what exists."
"$arena" --version
"$arena" --help
