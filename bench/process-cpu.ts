/**
 * CPU time the machine's processes spend, by what they are: the worker, the Temporal server, the
 * MongoDB server (FerretDB, and PostgreSQL under it), the bench itself. Read from /proc (Linux);
 * elsewhere every figure is 0. On a saturated machine runs/s says only that something is slower:
 * CPU per run says who pays.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export const CPU_ROLES = ['worker', 'temporal', 'ferretdb', 'postgres', 'bench'] as const;
export type CpuRole = (typeof CPU_ROLES)[number];
export type CpuByRole = Record<CpuRole, number>;

/** Clock ticks a second (`getconf CLK_TCK`; 100 on every Linux we know of). */
const TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** Each process's CPU ticks (user + system, all its threads), by pid, with its role. */
export type CpuSnapshot = Map<number, { role: CpuRole; ticks: number }>;

function roleOf(pid: number, comm: string, workerPid: number): CpuRole | undefined {
  if (pid === workerPid) return 'worker';
  if (pid === process.pid) return 'bench';
  if (comm === 'temporal' || comm === 'ferretdb' || comm === 'postgres') return comm;
  return undefined;
}

export function cpuSnapshot(workerPid: number): CpuSnapshot {
  const snapshot: CpuSnapshot = new Map();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return snapshot;
  }
  for (const dir of pids) {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${dir}/stat`, 'utf8');
    } catch {
      continue; // gone meanwhile
    }
    // `pid (comm) state …`: comm may hold spaces and parentheses, so split at the last `)`.
    const close = stat.lastIndexOf(')');
    const comm = stat.slice(stat.indexOf('(') + 1, close);
    const role = roleOf(Number(dir), comm, workerPid);
    if (role === undefined) continue;
    const fields = stat.slice(close + 2).split(' ');
    // Fields 14 and 15 of stat (utime, stime) are the 12th and 13th after `)`.
    snapshot.set(Number(dir), { role, ticks: Number(fields[11]) + Number(fields[12]) });
  }
  return snapshot;
}

/** CPU milliseconds each role spent between two snapshots (a process started meanwhile counts whole; one that ended is lost). */
export function cpuMsBetween(before: CpuSnapshot, after: CpuSnapshot): CpuByRole {
  const ms = Object.fromEntries(CPU_ROLES.map((r) => [r, 0])) as CpuByRole;
  for (const [pid, { role, ticks }] of after) ms[role] += ((ticks - (before.get(pid)?.ticks ?? 0)) * 1000) / TICKS_PER_SECOND;
  return ms;
}
