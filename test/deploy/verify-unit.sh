#!/usr/bin/env bash
# systemd's own checks on the unit, offline (no running systemd needed):
#   bash test/deploy/verify-unit.sh [path/to/lanegate.service]
# - `systemd-analyze verify`: syntax and values. It exits non-zero only for hard errors (such as
#   an ExecStart binary that does not exist) and merely WARNS on an unknown key or a bad value
#   ("Unknown key 'NoNewPriviliges'", "Failed to parse protect system value"): any message about
#   the unit counts as a failure here.
# - `systemd-analyze security --offline=true --threshold=20`: systemd's exposure score must stay
#   at or below 2.0 (of 10; "OK"). --threshold is on a 0-100 scale.
# Needs systemd-analyze (Debian package `systemd`); exits 2 if it is absent.
# shellcheck disable=SC2001 # sed indents multi-line output
set -euo pipefail
unit=${1:-deploy/systemd/lanegate.service}
if ! command -v systemd-analyze >/dev/null; then
  echo "  SKIP systemd-analyze not installed (apt-get install -y --no-install-recommends systemd)"
  exit 2
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# verify needs ExecStart's program to exist. The unit names /usr/bin/node (Debian's nodejs
# package); where node lives elsewhere, a temporary copy of the unit points ExecStart at this
# machine's node so the rest of the unit is still verified. The unit file itself is unchanged.
cp "$unit" "$tmp/lanegate.service"
if [[ ! -x /usr/bin/node ]]; then
  node_bin=$(command -v node)
  sed -i "s#^ExecStart=/usr/bin/node #ExecStart=${node_bin} #" "$tmp/lanegate.service"
  echo "  note /usr/bin/node is absent: verifying a copy with ExecStart=${node_bin}"
fi
rc=0
out=$(cd "$tmp" && systemd-analyze verify --man=no ./lanegate.service 2>&1) || rc=$?
mine=$(grep -F 'lanegate.service' <<<"$out" || true)
if [[ $rc -ne 0 || -n "$mine" ]]; then
  echo "  FAIL systemd-analyze verify (exit $rc):"
  sed 's/^/         /' <<<"${mine:-$out}"
  exit 1
fi
echo "  ok   systemd-analyze verify"
rc=0
sec=$(systemd-analyze security --offline=true --threshold=20 "$tmp/lanegate.service" 2>&1) || rc=$?
score=$(grep -F 'Overall exposure level' <<<"$sec" | sed 's/.*: //; s/[^ -~]//g; s/ *$//' || true)
if [[ $rc -ne 0 ]]; then
  echo "  FAIL systemd-analyze security: exposure ${score:-?} is above 2.0"
  exit 1
fi
echo "  ok   systemd-analyze security --offline: exposure ${score} (threshold 2.0)"
