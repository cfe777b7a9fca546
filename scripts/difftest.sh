#!/usr/bin/env bash
# The differential tester of random stencil programs: scripts/difftest.sh [N] [SEED].
# See tests/difftest/difftest.sh (environment, output) and tests/difftest/README.md.
exec "$(dirname "$0")/../tests/difftest/difftest.sh" "$@"
