#!/usr/bin/env bash
# Rewrites docs/configuration.md from `tracewarp run --keys`. The build runs it after linking
# tracewarp (CMakeLists.txt, TRACEWARP_GENERATE_DOCS), so a new key or policy is documented by
# building; the ctest 'docs.configuration' fails if a committed file disagrees.
#   scripts/make-configuration-doc.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
tw="${1:-build}/tracewarp"
new=$(mktemp docs/configuration.md.XXXXXX)
trap 'rm -f "$new"' EXIT
{
  sed -n '1,/^This table is the output of/p' docs/configuration.md
  echo
  OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$tw" run --keys
} > "$new"
# Only a changed file is written: an unchanged one keeps its time stamp.
cmp -s "$new" docs/configuration.md || { chmod 644 "$new"; mv "$new" docs/configuration.md; }
