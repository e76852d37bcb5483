#!/usr/bin/env node
// Validates docker-compose.yml with the Docker client when it is installed (no engine needed).
'use strict';
const { spawnSync } = require('node:child_process');
const probe = spawnSync('docker', ['compose', 'version'], { stdio: 'ignore' });
if (probe.error || probe.status !== 0) {
  console.log('docker compose not installed; skipping docker-compose.yml validation');
  process.exit(0);
}
const res = spawnSync('docker', ['compose', '-f', 'docker-compose.yml', 'config', '-q'], { stdio: 'inherit' });
if (res.status !== 0) {
  console.error('docker-compose.yml is invalid (docker compose config -q)');
  process.exit(res.status ?? 1);
}
console.log('docker-compose.yml is valid');
