/**
 * One role of a cluster as its own process: `tsx server/main.ts` with its settings, up once
 * its stdout says so, stopped with SIGTERM (SIGKILL after 10 s).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const UP_TIMEOUT_MS = 60_000;

export interface RoleProcess {
  readonly proc: ChildProcess;
  /** The captures of the line that said it is up. */
  readonly up: RegExpExecArray;
  stop(): Promise<void>;
}

/** Starts `server/main.ts` with `env` and waits for a stdout line matching `ready`. */
export async function startRole(env: Record<string, string>, ready: RegExp): Promise<RoleProcess> {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'server/main.ts')], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  let stderr = '';
  proc.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const stop = async (): Promise<void> => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill('SIGTERM');
    const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };
  try {
    const up = await new Promise<RegExpExecArray>((resolve, reject) => {
      let partial = '';
      proc.stdout!.on('data', (chunk: Buffer) => {
        const parts = (partial + chunk.toString('utf8')).split('\n');
        partial = parts.pop()!;
        for (const line of parts) {
          const m = ready.exec(line);
          if (m) resolve(m);
        }
      });
      void exited.then((code) =>
        reject(new Error(`${env['ROLE']} exited (${code}) before it was up: ${stderr}`)),
      );
      setTimeout(
        () => reject(new Error(`${env['ROLE']} not up within ${UP_TIMEOUT_MS} ms: ${stderr}`)),
        UP_TIMEOUT_MS,
      ).unref();
    });
    return { proc, up, stop };
  } catch (e) {
    await stop();
    throw e;
  }
}
