#!/usr/bin/env node
// Runs a server as a child and stops it when our parent goes away (its end of the stdin pipe
// closes), so a crashed or killed test run never leaves a server behind.
'use strict';
const { spawn } = require('node:child_process');
const [cmd, ...args] = process.argv.slice(2);
// PERFLOW_GUARD_UID/GID: run the server as that user (PostgreSQL refuses to run as root).
const user = process.env.PERFLOW_GUARD_UID ? { uid: Number(process.env.PERFLOW_GUARD_UID), gid: Number(process.env.PERFLOW_GUARD_GID) } : {};
const child = spawn(cmd, args, { stdio: ['ignore', 'inherit', 'inherit'], ...user });
const stop = (sig) => { if (child.exitCode === null) child.kill(sig); };
process.stdin.on('end', () => stop('SIGTERM'));
process.stdin.on('error', () => stop('SIGTERM'));
process.stdin.resume();
for (const sig of ['SIGTERM', 'SIGINT']) process.on(sig, () => stop(sig));
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
child.on('error', (err) => { console.error(`cannot start ${cmd}: ${err.message}`); process.exit(127); });
