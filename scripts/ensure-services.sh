#!/usr/bin/env bash
# Starts PostgreSQL and Redis when they are not answering (the machine's own commands, see README).
# When one is neither answering nor installed, says in one line what to do and exits 1.
set -euo pipefail

answers() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }
missing() {
  echo "$1 is not running on 127.0.0.1:$2 and is not installed here: install it ($3)," \
    "or run the whole stack with \`docker compose up\` instead." >&2
  exit 1
}

if ! answers 5432; then
  if ! command -v pg_ctlcluster >/dev/null || [ -z "$(ls /etc/postgresql 2>/dev/null)" ]; then
    missing PostgreSQL 5432 'Debian/Ubuntu: apt-get install postgresql'
  fi
  echo "starting PostgreSQL…"
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start
  for _ in $(seq 1 30); do pg_isready -q -h 127.0.0.1 -p 5432 && break; sleep 1; done
fi
answers 5432 && echo "postgres: answering on 127.0.0.1:5432"

if ! answers 6379; then
  if ! command -v redis-server >/dev/null; then
    missing Redis 6379 'Debian/Ubuntu: apt-get install redis-server'
  fi
  echo "starting Redis…"
  mkdir -p /var/lib/redis /var/log/redis
  redis-server --daemonize yes --bind 127.0.0.1 -::1 --port 6379 --save "" --appendonly no \
    --maxmemory-policy noeviction --dir /var/lib/redis --logfile /var/log/redis/ci.log
  for _ in $(seq 1 30); do answers 6379 && break; sleep 1; done
fi
answers 6379 && echo "redis: answering on 127.0.0.1:6379"
# The queue apps refuse a Redis that may evict keys (docs/deployment.md, What PostgreSQL and Redis
# must be): a local Redis started otherwise is set to noeviction, as the docs ask of any.
if command -v redis-cli >/dev/null; then
  policy="$(redis-cli -h 127.0.0.1 -p 6379 CONFIG GET maxmemory-policy 2>/dev/null | sed -n 2p || true)"
  if [ -n "$policy" ] && [ "$policy" != noeviction ]; then
    redis-cli -h 127.0.0.1 -p 6379 CONFIG SET maxmemory-policy noeviction >/dev/null &&
      echo "redis: maxmemory-policy was $policy, set to noeviction (BullMQ's requirement)"
  fi
fi
