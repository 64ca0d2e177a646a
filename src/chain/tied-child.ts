/**
 * A child process that does not outlive us: on Linux it is started through util-linux `setpriv
 * --pdeathsig TERM` (which execs it, so the pid is the child's own), and the kernel sends it
 * SIGTERM when this process dies, even by SIGKILL, where no exit handler of ours runs. Without
 * `setpriv` (other systems) it is a plain child: exit handlers and the caller's stop() only.
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync } from 'node:fs';

const SETPRIV = ['/usr/bin/setpriv', '/bin/setpriv'].find((p) => process.platform === 'linux' && existsSync(p)) ?? null;

export function spawnTiedToParent(command: string, args: readonly string[], options: SpawnOptions): ChildProcess {
  return SETPRIV ? spawn(SETPRIV, ['--pdeathsig', 'TERM', '--', command, ...args], options) : spawn(command, args, options);
}
