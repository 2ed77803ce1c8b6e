#!/bin/sh
# What an image holds: the built workspace package in <package dir> (e.g. apps/wallet-control) with
# its production dependencies only, as `node dist/main.js` runs it, written to <out dir>.
# Run from the root of a built workspace; the Dockerfile and infra/docker/test/image-contents.test.ts
# both call it, so the test checks what the image gets.
set -eu
if [ $# -ne 2 ] || [ ! -f "$1/package.json" ]; then
  echo "usage: $0 <workspace package dir, e.g. apps/wallet-control> <out dir>" >&2
  exit 2
fi
package_dir=$1
out_dir=$2
if [ ! -d "$package_dir/dist" ]; then
  echo "$package_dir/dist is missing: run pnpm build first" >&2
  exit 1
fi
# pnpm deploy copies the package as it would be published (its "files") and installs, beside it,
# its production dependencies, workspace packages included (each as published too: dist, no sources).
# It installs from the lockfile alone: --offline takes every package from the store the install step
# filled, and --trust-lockfile skips pnpm 12's supply-chain check of the deployed lockfile. That check
# reads registry metadata that a lockfile install (`install --frozen-lockfile --trust-lockfile`) never
# fetches, so without the flag the assembly passed or failed with whatever other pnpm commands had
# left in the machine's metadata cache (issue 21). Nothing is lost: the deployed lockfile is a subset
# of the workspace lockfile, whose packages the install step already took by their integrity hashes.
pnpm --filter "./$package_dir" deploy --prod --offline --trust-lockfile "$out_dir"
# pnpm's own records of the install: nothing at run time reads them.
rm -f "$out_dir/pnpm-lock.yaml" "$out_dir/pnpm-workspace.yaml"
