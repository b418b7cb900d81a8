#!/usr/bin/env bash
# Proves the deploy checks are not vacuous: each mutation breaks ONE thing in a temp copy of
# deploy/ and the named checker must then fail (and say why). The real files are never touched.
#   bash test/deploy/mutations.sh
# A mutation whose edit matches nothing is itself a failure (the artifact changed under it).
# shellcheck disable=SC2016 # the $1 in the perl expressions below is perl's, not the shell's
set -euo pipefail
cd "$(dirname "$0")/../.."
here=$PWD/test/deploy
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
killed=0
survived=()

# mutate NAME EXPECT FILES PERL-EXPR -- CHECK...
#   FILES: space-separated paths under deploy/; PERL-EXPR: applied with perl -0pi (whole file);
#   EXPECT: a substring the failing checker must print; CHECK: run with D set to the broken copy.
mutate() {
  local name=$1 expect=$2 files=$3 expr=$4
  shift 5
  rm -rf "$work/deploy" && cp -r deploy "$work/deploy"
  local f
  for f in $files; do
    perl -0pi -e "$expr" "$work/deploy/$f"
    if cmp -s "deploy/$f" "$work/deploy/$f"; then
      echo "  FAIL [$name] the edit did not apply to $f (update this mutation)"
      survived+=("$name")
      return
    fi
  done
  local out rc=0
  out=$(D="$work/deploy" "$@" 2>&1) || rc=$?
  if [[ $rc -ne 0 && $rc -ne 2 ]] && grep -qF -- "$expect" <<<"$out"; then
    echo "  ok   [$name] caught: $(grep -F -- "$expect" <<<"$out" | head -1 | sed 's/^ *//' | cut -c1-150)"
    killed=$((killed + 1))
  else
    echo "  FAIL [$name] not caught (exit $rc, expected \"$expect\"):"
    tail -5 <<<"$out" | sed 's/^/         /'
    survived+=("$name")
  fi
}
unit() { bash "$here/verify-unit.sh" "$D/systemd/lanegate.service"; }
directives() { node "$here/check-systemd-unit.mjs" "$D/systemd/lanegate.service" "$D/policy.example.yaml"; }
dockerlint() { node "$here/lint-dockerfile.mjs" "$D/container/Dockerfile"; }
k8s() { node "$here/validate-k8s.mjs" "$D/k8s" "$D/policy.example.yaml" "$D/container/Dockerfile"; }
policy() { node "$here/check-policy.mjs" "$D/policy.example.yaml"; }
smoke() { node "$here/smoke-runtime.mjs" "$D"; }
sandbox() { node "$here/smoke-runtime.mjs" --systemd "$D"; }
both='policy.example.yaml k8s/configmap.yaml'

echo "systemd unit"
if command -v systemd-analyze >/dev/null; then
  mutate 'typo in a directive name' "Unknown key 'NoNewPriviliges'" systemd/lanegate.service 's/^NoNewPrivileges=/NoNewPriviliges=/m' -- unit
  mutate 'invalid directive value' 'Failed to parse protect system value' systemd/lanegate.service 's/^ProtectSystem=strict/ProtectSystem=strikt/m' -- unit
  mutate 'sandbox gutted' 'exposure' systemd/lanegate.service 's/^(Protect|Private|Restrict|SystemCall|CapabilityBoundingSet|NoNewPrivileges|LockPersonality)\S*\n//mg' -- unit
fi
mutate 'NoNewPrivileges removed' 'FAIL NoNewPrivileges=yes' systemd/lanegate.service 's/^NoNewPrivileges=yes\n//m' -- directives
mutate 'MemoryDenyWriteExecute=yes (kills node)' 'FAIL MemoryDenyWriteExecute' systemd/lanegate.service 's/^LockPersonality=yes$/LockPersonality=yes\nMemoryDenyWriteExecute=yes/m' -- directives
mutate 'capabilities granted' 'FAIL CapabilityBoundingSet=' systemd/lanegate.service 's/^CapabilityBoundingSet=$/CapabilityBoundingSet=CAP_NET_BIND_SERVICE/m' -- directives
mutate 'KillMode=process (orphans hosts)' 'FAIL KillMode=control-group' systemd/lanegate.service 's/^KillMode=control-group/KillMode=process/m' -- directives
mutate 'policy state dir not the StateDirectory' 'gateway.stateDir = /var/lib/lanegate' policy.example.yaml 's#stateDir: /var/lib/lanegate#stateDir: ./.lanegate#' -- directives

echo "Dockerfile"
mutate 'HEALTHCHECK removed' 'FAIL HEALTHCHECK in the final stage' container/Dockerfile 's/^HEALTHCHECK .*?\n  CMD .*?\n//ms' -- dockerlint
mutate 'HEALTHCHECK with curl' 'FAIL HEALTHCHECK needs no curl' container/Dockerfile 's/CMD \["node", "-e", .*\]$/CMD ["curl", "-fsS", "http:\/\/127.0.0.1:8750\/healthz"]/m' -- dockerlint
mutate 'runs as root' 'FAIL final stage runs as a non-root USER' container/Dockerfile 's/^USER 10001:10001$/USER root/m' -- dockerlint
mutate 'unpinned base image' 'FAIL base images pinned' container/Dockerfile 's/^FROM node:20-bookworm-slim AS runtime$/FROM node:latest AS runtime/m' -- dockerlint
mutate 'single stage' 'FAIL multi-stage build' container/Dockerfile 's/^FROM node:20-bookworm-slim AS (build|deps)$/# removed/mg' -- dockerlint
mutate 'npm install instead of npm ci' 'FAIL dependencies installed with npm ci' container/Dockerfile 's/npm ci --omit=dev/npm install --omit=dev/' -- dockerlint
mutate 'dev dependencies shipped' 'FAIL runtime node_modules come from' container/Dockerfile 's/COPY --from=deps \/opt\/lanegate\/node_modules/COPY --from=build \/src\/node_modules/' -- dockerlint
mutate 'ADD from a URL' 'FAIL no ADD of a URL' container/Dockerfile 's/^COPY package.json \.\/\n(ENV|COPY --from)/ADD https:\/\/example.invalid\/x.tgz \/tmp\/\nCOPY package.json .\/\n$1/m' -- dockerlint
mutate 'unknown instruction flag' 'FAIL syntax' container/Dockerfile 's/HEALTHCHECK --interval=30s/HEALTHCHECK --intervl=30s/' -- dockerlint
mutate 'serve without --watch in the image' 'FAIL CMD reloads an edited policy by itself' container/Dockerfile 's/"--no-lane-configs", "--watch"\]/"--no-lane-configs"]/' -- dockerlint
mutate 'ignore file lets local state in' 'FAIL ignore file keeps local state' container/Dockerfile.dockerignore 's/^\*\n//m' -- dockerlint

echo "Kubernetes"
mutate 'selector does not match template labels' 'FAIL DaemonSet selector matches' k8s/daemonset.yaml 's/(matchLabels:\n.*\n\s+app\.kubernetes\.io\/component:) gateway/$1 gw/' -- k8s
mutate 'typo in a securityContext field' 'readOnlyRootFileSystem' k8s/daemonset.yaml 's/(name: lanegate\n(?:.*\n)*?\s+)readOnlyRootFilesystem: true/$1readOnlyRootFileSystem: true/' -- k8s
mutate 'wrong type (schema)' 'FAIL daemonset.yaml#0 DaemonSet/lanegate: schema' k8s/daemonset.yaml 's/periodSeconds: 10/periodSeconds: ten/' -- k8s
mutate 'no host network' 'FAIL hostNetwork: true' k8s/daemonset.yaml 's/hostNetwork: true/hostNetwork: false/' -- k8s
mutate 'privilege escalation allowed' 'FAIL container lanegate: hardened securityContext' k8s/daemonset.yaml 's/(containers:\n(?:.*\n)*?\s+)allowPrivilegeEscalation: false/$1allowPrivilegeEscalation: true/' -- k8s
mutate 'mount without a volume' 'FAIL every volumeMount names a volume' k8s/daemonset.yaml 's/        - name: tmp\n          emptyDir:\n            sizeLimit: 256Mi\n//' -- k8s
mutate 'readiness probe on the wrong port' 'FAIL readinessProbe' k8s/daemonset.yaml 's/(path: \/readyz, port:) 8750/$1 8751/' -- k8s
mutate 'Secret mounted where the policy does not read' 'FAIL each policy secret file' k8s/daemonset.yaml 's#mountPath: /etc/lanegate/secrets/alice-mail#mountPath: /etc/lanegate/secrets/alice#' -- k8s
mutate 'Secret key renamed' 'has no key MAILBOX_TOKEN' k8s/secret-example.yaml 's/(team-mail\n(?:.*\n)*?\s+)MAILBOX_TOKEN:/$1TOKEN:/' -- k8s
mutate 'Secret not in the kustomization' 'FAIL every ConfigMap/Secret a volume references' k8s/kustomization.yaml 's/^  - secret-example.yaml.*\n//m' -- k8s
mutate 'world-readable secret files' 'FAIL secret files not world-readable' k8s/daemonset.yaml 's/defaultMode: 288 # 0440$/defaultMode: 420/m' -- k8s
mutate 'real-looking secret value' 'FAIL example Secret values are placeholders' k8s/secret-example.yaml 's/PLACEHOLDER-team-mail-token-replace-me/ghp_a1b2c3d4e5f6/' -- k8s
mutate 'ConfigMap drifted from the example policy' 'FAIL ConfigMap policy is' k8s/configmap.yaml 's/(ops:\n\s+servers: )\[team\]/$1\[team, mail\]/' -- k8s
mutate 'policy mounted with subPath (never follows ConfigMap updates)' 'FAIL the policy ConfigMap is mounted as a directory' k8s/daemonset.yaml 's#mountPath: /etc/lanegate/policy\n#mountPath: /etc/lanegate/policy/policy.yaml\n              subPath: policy.yaml\n#' -- k8s
mutate 'serve without --watch in the DaemonSet' 'FAIL the gateway runs serve --watch' k8s/daemonset.yaml 's/, --no-lane-configs, --watch\]/, --no-lane-configs]/' -- k8s
mutate 'pod uid is not the image uid' 'FAIL pod runAsUser is the image USER' container/Dockerfile 's/^USER 10001:10001$/USER 10002:10002/m' -- k8s

echo "policy"
mutate 'policy typo (strict schema)' 'Invalid option' "$both" 's/kind: shared/kind: shraed/' -- policy
mutate 'policy listens off loopback' 'must be a loopback host:port' "$both" 's/listen: 127.0.0.1:8750/listen: 0.0.0.0:8750/' -- policy

echo "runtime smoke and systemd sandbox emulation (slow: one run each)"
mutate 'server path not in the image' 'FAIL lane ops -> team_whoami' "$both" 's#(team-mail\n(?:.*\n)*?\s+args: \[/opt/lanegate/dist/demo/)mailbox-server.js#${1}mailbox.js#' -- smoke

if [[ $(id -u) -eq 0 ]] && command -v strace >/dev/null && command -v setpriv >/dev/null && command -v systemd-analyze >/dev/null; then
  # hosts start MCP servers through setpriv, which needs capset(2), a member of @privileged
  mutate 'syscall filter denies @privileged' 'FAIL lane ops -> team_whoami' systemd/lanegate.service 's/^SystemCallFilter=\@system-service$/SystemCallFilter=\@system-service\nSystemCallFilter=~\@privileged/m' -- sandbox
fi

echo
if [[ ${#survived[@]} -gt 0 ]]; then
  echo "mutations: $killed caught, ${#survived[@]} NOT caught: ${survived[*]}"
  exit 1
fi
echo "mutations: all $killed caught"
