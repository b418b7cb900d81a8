#!/usr/bin/env bash
# Checks of the deploy artifacts (deploy/), offline: no Docker engine, no cluster, no download
# beyond what `npm ci` already fetched.
#
#   bash test/deploy/check-deploy.sh [--no-smoke] [--no-mutations]
#
# Needs: a built dist/ (npm run build), the root devDependencies (npm ci: yaml, typescript) and
# the checkers' own packages (npm ci --prefix test/deploy). Uses, when installed:
# systemd-analyze (Debian `systemd`), strace + setpriv + root (sandbox emulation) and kubectl
# (kustomize build); without them those steps are reported as SKIP, not passed.
#
#   1 systemd     systemd-analyze verify + offline security score; every hardening directive;
#                 the gateway run as the unit would run it: uid, no privileges, syscall filter
#   2 container   Dockerfile syntax (dockerfile-utils) + project rules + its .dockerignore
#   3 kubernetes  kustomize build; schema (kubernetes-models); strict fields (tsc); DaemonSet,
#                 mounts, Secrets per trust domain, probes vs policy, uid vs image
#   4 policy      `lanegate check` on deploy/policy.example.yaml
#   5 smoke       the runtime image's contents, run for real on loopback (smoke-runtime.mjs)
#   6 mutations   each artifact broken on purpose in a temp copy: the checks above must fail
# Exit status: non-zero if any step failed.
# shellcheck disable=SC2001 # sed indents multi-line output
set -euo pipefail
cd "$(dirname "$0")/../.."
here=test/deploy
deploy=${LANEGATE_DEPLOY_DIR:-deploy}
smoke=1
mutations=1
for a in "$@"; do
  case $a in
    --no-smoke) smoke=0 ;;
    --no-mutations) mutations=0 ;;
    *) echo "usage: $0 [--no-smoke] [--no-mutations]" >&2; exit 2 ;;
  esac
done

passed=0
failed=0
skipped=0
failed_steps=()
step() { # step NAME COMMAND...: runs it, tallies it; exit 2 from a step means "skipped"
  local name=$1
  shift
  echo
  echo "== $name"
  local rc=0
  "$@" || rc=$?
  if [[ $rc -eq 0 ]]; then
    passed=$((passed + 1))
  elif [[ $rc -eq 2 ]]; then
    skipped=$((skipped + 1))
  else
    failed=$((failed + 1))
    failed_steps+=("$name")
  fi
}

# Prerequisites: missing pieces are failures with the command that provides them.
missing=()
[[ -d $here/node_modules/kubernetes-models && -d $here/node_modules/dockerfile-utils ]] || missing+=("npm ci --prefix test/deploy --no-audit --no-fund")
[[ -f node_modules/yaml/package.json && -f node_modules/typescript/bin/tsc ]] || missing+=("npm ci")
[[ -f dist/cli/main.js ]] || missing+=("npm run build")
if [[ ${#missing[@]} -gt 0 ]]; then
  echo "check-deploy: missing prerequisites; run:"
  printf '  %s\n' "${missing[@]}"
  exit 1
fi

kustomize_build() {
  if ! command -v kubectl >/dev/null; then
    echo "  SKIP kubectl not installed: kustomization not rendered (validate-k8s.mjs still reads it)"
    return 2
  fi
  local out
  if ! out=$(kubectl kustomize "$deploy/k8s" 2>&1); then
    echo "  FAIL kubectl kustomize $deploy/k8s:"
    sed 's/^/         /' <<<"$out"
    return 1
  fi
  echo "  ok   kubectl kustomize $deploy/k8s: $(grep -c '^kind:' <<<"$out") objects"
}

step "1a systemd: systemd-analyze" bash $here/verify-unit.sh "$deploy/systemd/lanegate.service"
step "1b systemd: hardening directives" node $here/check-systemd-unit.mjs "$deploy/systemd/lanegate.service" "$deploy/policy.example.yaml"
step "1c systemd: sandbox emulation (uid, NoNewPrivileges, no capabilities, SystemCallFilter)" node $here/smoke-runtime.mjs --systemd "$deploy"
step "2  container: Dockerfile lint" node $here/lint-dockerfile.mjs "$deploy/container/Dockerfile"
step "3a kubernetes: kustomize build" kustomize_build
step "3b kubernetes: schema, strict fields, deployment rules" node $here/validate-k8s.mjs "$deploy/k8s" "$deploy/policy.example.yaml" "$deploy/container/Dockerfile"
step "4  policy: lanegate check" node $here/check-policy.mjs "$deploy/policy.example.yaml"
if [[ $smoke -eq 1 ]]; then
  step "5  smoke: runtime image contents on loopback" node $here/smoke-runtime.mjs "$deploy"
else
  echo
  echo "== 5  smoke: SKIP (--no-smoke)"
  skipped=$((skipped + 1))
fi
if [[ $mutations -eq 1 ]]; then
  step "6  mutations: broken artifacts must fail the checks" bash $here/mutations.sh
else
  echo
  echo "== 6  mutations: SKIP (--no-mutations)"
  skipped=$((skipped + 1))
fi

echo
if [[ $failed -gt 0 ]]; then
  echo "check-deploy: failed: ${failed_steps[*]}"
fi
echo "deploy: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
