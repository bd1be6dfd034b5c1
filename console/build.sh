#!/bin/sh
# Builds the web console into the server's resources (committed, so that a Maven build needs no
# node): npm ci, then esbuild bundles src/app.js with Preact and htm into console.js and its CSS
# into console.css, and index.html is copied. The bundle's first line records the hash of the
# sources (sources-hash.mjs); ConsoleBundleTest fails when it no longer matches them.
set -eu
cd "$(dirname "$0")"
out=../server/src/main/resources/console
npm ci --no-audit --no-fund
hash=$(node sources-hash.mjs)
mkdir -p "$out"
node_modules/.bin/esbuild src/app.js --bundle --minify --format=iife --target=es2020 \
  --banner:js="/* tributary console; sources sha256 $hash */" --outfile="$out/console.js"
cp src/index.html "$out/index.html"
echo "console built into $out (sources $hash)"
