/**
 * Wall and CPU time of a command from its start to its exit, for the startup section. Node gives
 * no child's resource usage, so the CPU is what the kernel adds to this process's cutime and
 * cstime (/proc/self/stat) when it reaps the child: the child's user + system time, and that of
 * whatever it waited for. Any other child of ours ending meanwhile would count too, so the
 * section runs its commands one at a time. Linux only (/proc), at the kernel's 10 ms tick.
 */
import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';

const execFileAsync = promisify(execFile);
const MS_PER_TICK = 1000 / (Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100);

/** /proc/<pid>/stat from `state` on: `comm` before it may hold spaces and parentheses. */
function statAfterComm(pid: number | 'self'): number[] {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
}

/** CPU milliseconds of the children this process has reaped (cutime + cstime). */
function reapedChildrenCpuMs(): number {
  const f = statAfterComm('self');
  return (f[13] + f[14]) * MS_PER_TICK;
}

/** CPU milliseconds a live process has spent: its threads (utime + stime) and its reaped children. */
export function processCpuMs(pid: number): number {
  const f = statAfterComm(pid);
  return (f[11] + f[12] + f[13] + f[14]) * MS_PER_TICK;
}

export interface Timed {
  wallMs: number;
  cpuMs: number;
  stdout: string;
}

/** Runs a command to its exit (rejecting on a non-zero exit, with its stderr); its wall and CPU time. */
export async function timeCommand(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv }): Promise<Timed> {
  const cpu0 = reapedChildrenCpuMs();
  const t0 = performance.now();
  const { stdout } = await execFileAsync(command, args, { ...options, maxBuffer: 16 * 2 ** 20 });
  const wallMs = performance.now() - t0;
  return { wallMs, cpuMs: reapedChildrenCpuMs() - cpu0, stdout };
}

export interface Spread {
  min: number;
  median: number;
  max: number;
}

export function spread(xs: number[]): Spread {
  const s = [...xs].sort((a, b) => a - b);
  const mid = s.length >> 1;
  return { min: s[0], median: s.length % 2 ? s[mid] : (s[mid - 1] + s[mid]) / 2, max: s[s.length - 1] };
}
