#!/usr/bin/env bash
# Installs what models/train needs (never needed to build, test or run arena): Debian's PyTorch
# and NumPy, OpenBLAS (Debian's torch does its matrix products through the system BLAS: the
# reference BLAS is about ten times slower), and the two engines that play and label the games.
set -euo pipefail
packages=(python3-torch python3-numpy libopenblas0-pthread stockfish fairy-stockfish)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [[ $(id -u) -eq 0 ]] || sudo="sudo"
  $sudo apt-get update -q
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q "${missing[@]}"
fi
/usr/bin/python3 -c 'import torch, numpy' || { echo "setup.sh: torch/numpy do not import" >&2; exit 1; }
