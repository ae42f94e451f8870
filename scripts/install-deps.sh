#!/usr/bin/env bash
# Installs exactly the Debian packages tracewarp needs to build, test and post-process.
# Safe to run repeatedly; needs root (or sudo) and Debian 12.
#   scripts/install-deps.sh           # build, test and post-process
#   scripts/install-deps.sh --slurm   # and a Slurm to test the sbatch scripts on (ctest -L slurm)
set -euo pipefail
packages=(
  build-essential cmake ninja-build pkg-config git clang-format time
  libopenmpi-dev openmpi-bin libboost-mpi-dev libboost-serialization-dev
  libhdf5-openmpi-dev libhdf5-dev hdf5-tools
  libtbb-dev catch2
  libcli11-dev libtomlplusplus-dev nlohmann-json3-dev
  librandom123-dev zlib1g-dev libbenchmark-dev libsimgrid-dev
  python3 python3-h5py python3-numpy python3-matplotlib python3-pandas python3-scipy
  python3-dev pybind11-dev
)
if [ "${1:-}" = "--slurm" ]; then packages+=(slurmctld slurmd slurm-client munge slurmdbd mariadb-server); fi
sudo_cmd=()
if [ "$(id -u)" -ne 0 ]; then sudo_cmd=(sudo); fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#packages[@]} packages present"
  exit 0
fi
echo "install-deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
