#!/usr/bin/env bash
# Rewrites docs/configuration.md from `tracewarp run --keys` (the ctest 'docs.configuration'
# fails when they disagree).   scripts/make-configuration-doc.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
tw="${1:-build}/tracewarp"
{
  sed -n '1,/^This table is the output of/p' docs/configuration.md
  echo
  "$tw" run --keys
} > docs/configuration.md.new
mv docs/configuration.md.new docs/configuration.md
