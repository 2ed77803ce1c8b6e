#!/usr/bin/env bash
# Checks the compose files with whichever compose client this machine has (Debian's docker-compose
# is installed when there is none): docker-compose.yml must be valid with an empty environment (a
# newcomer exports nothing); docker-compose.production.yml must refuse without its settings file,
# and be valid once that file and every secret file exist.
set -euo pipefail
cd "$(dirname "$0")/.."

if docker compose version >/dev/null 2>&1; then
  compose=(docker compose)
elif command -v docker-compose >/dev/null 2>&1; then
  compose=(docker-compose)
elif [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq docker-compose >/dev/null
  compose=(docker-compose)
else
  echo "check-compose: no compose client; install Docker Compose (Debian: apt-get install docker-compose)" >&2
  exit 1
fi
empty_env() { env -i PATH="$PATH" "$@"; }

empty_env "${compose[@]}" -f docker-compose.yml config --quiet
echo "docker-compose.yml: valid with an empty environment (${compose[*]})"

if empty_env "${compose[@]}" -f docker-compose.production.yml config --quiet 2>/dev/null; then
  echo "docker-compose.production.yml: accepted without production.env; it must refuse" >&2
  exit 1
fi
echo "docker-compose.production.yml: refuses without production.env"

placeholders=$(mktemp -d)
trap 'rm -rf "$placeholders"' EXIT
mkdir "$placeholders/secrets"
: >"$placeholders/production.env"
secrets=$(sed -n 's/^  \([a-z_]*\): { file: .*/\1/p' docker-compose.production.yml)
for name in $secrets; do echo placeholder >"$placeholders/secrets/$name"; done
empty_env GATEWAY_ENV_FILE="$placeholders/production.env" GATEWAY_SECRETS_DIR="$placeholders/secrets" \
  "${compose[@]}" -f docker-compose.production.yml config --quiet
echo "docker-compose.production.yml: valid with its settings file and $(echo "$secrets" | wc -w) secret files"
