#!/usr/bin/env bash
# Installs the Debian packages gridsolve builds against (Debian 12 / Ubuntu 24.04).
set -euo pipefail
packages=(cmake ninja-build g++ pkg-config libcli11-dev libtomlplusplus-dev libfmt-dev
  libhdf5-dev libhdf5-openmpi-dev libmuparser-dev nlohmann-json3-dev libgtest-dev libbenchmark-dev
  libfftw3-dev liblapack-dev gnuplot-nox
  libopenmpi-dev openmpi-bin  # MPI: several processes, and the mpi-labelled tests' mpiexec
  libhypre-dev  # HYPRE: the structured-multigrid peer of `gridsolve bench mg`
  python3-dev python3-venv python3-numpy python3-pytest  # the Python module and its tests
  python3-mpi4py)  # its communicators, for the module on ranks (the same Open MPI)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "gridsolve: build dependencies present"
else
  as_root=()
  [ "$(id -u)" -eq 0 ] || as_root=(sudo)
  echo "gridsolve: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  "${as_root[@]}" apt-get update -q
  "${as_root[@]}" apt-get install -y -q --no-install-recommends "${missing[@]}"
fi
# nanobind (PyPI; Debian 12 does not package it) in a virtual environment of the system
# Python beside the checkout, which sees Debian's NumPy and pytest: the build finds it
# there and builds the Python module.
cd "$(dirname "$0")/.."
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c "import nanobind" 2>/dev/null; then
  echo "gridsolve: installing nanobind into .venv"
  /usr/bin/python3 -m venv --system-site-packages .venv
  .venv/bin/pip install -q nanobind
fi
